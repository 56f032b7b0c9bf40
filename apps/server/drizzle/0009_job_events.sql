CREATE TABLE "job_events" (
	"kind" text NOT NULL,
	"job_id" text NOT NULL,
	"seq" integer NOT NULL,
	"type" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "job_events_pkey" PRIMARY KEY("kind","job_id","seq")
);
