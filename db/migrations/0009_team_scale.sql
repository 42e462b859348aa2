ALTER TYPE "public"."event_type" ADD VALUE 'edited';--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'commented';--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'archived';--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'unarchived';--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN "description" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN "archived_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN "archived_by" uuid;--> statement-breakpoint
ALTER TABLE "queues" ADD CONSTRAINT "queues_archived_by_actors_id_fk" FOREIGN KEY ("archived_by") REFERENCES "public"."actors"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tasks_search" ON "tasks" USING gin (to_tsvector('simple'::regconfig, "title" || ' ' || "description" || ' ' || "payload"::text));