CREATE TABLE "evaluations" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"status" text NOT NULL,
	"params" jsonb NOT NULL,
	"progress" double precision DEFAULT 0 NOT NULL,
	"results" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"error" jsonb,
	"created_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp (6) with time zone,
	"finished_at" timestamp (6) with time zone
);
--> statement-breakpoint
CREATE TABLE "image_sets" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"params" jsonb NOT NULL,
	"classes" jsonb,
	"count" integer,
	"error" jsonb,
	"created_at" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "topologies" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"latest_version" integer NOT NULL,
	"created_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "topology_versions" (
	"topology_id" text NOT NULL,
	"version" integer NOT NULL,
	"body" jsonb NOT NULL,
	"message" text,
	"created_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "topology_versions_topology_id_version_unique" UNIQUE("topology_id","version")
);
--> statement-breakpoint
ALTER TABLE "topology_versions" ADD CONSTRAINT "topology_versions_topology_id_topologies_id_fk" FOREIGN KEY ("topology_id") REFERENCES "public"."topologies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "evaluations_created_at_idx" ON "evaluations" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "image_sets_created_at_idx" ON "image_sets" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "topologies_updated_at_idx" ON "topologies" USING btree ("updated_at");