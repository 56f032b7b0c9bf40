CREATE TABLE "datasets" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"format" text,
	"status" text NOT NULL,
	"n" integer,
	"d" integer,
	"dtype" text,
	"source_bytes" bigint NOT NULL,
	"progress" double precision DEFAULT 0 NOT NULL,
	"error" jsonb,
	"stats" jsonb,
	"upload_id" text,
	"created_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "datasets_upload_id_unique" UNIQUE("upload_id")
);
--> statement-breakpoint
CREATE TABLE "meta" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL
);
--> statement-breakpoint
CREATE INDEX "datasets_created_at_idx" ON "datasets" USING btree ("created_at");