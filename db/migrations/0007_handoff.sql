CREATE TYPE "public"."claimants" AS ENUM('anyone', 'people', 'agents');--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'attempt_limit_reached';--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN "claimants" "claimants" DEFAULT 'anyone' NOT NULL;--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN "max_attempt_seconds" integer;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "claimed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "attempt_limited" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "progress" jsonb;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "progress_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "handoff" jsonb;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "handoff_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "tasks_attempt_limited" ON "tasks" USING btree ("queue","lease_until") WHERE "tasks"."attempt_limited" AND "tasks"."status" IN ('claimed', 'started');--> statement-breakpoint
ALTER TABLE "queues" ADD CONSTRAINT "queues_max_attempt_seconds_range" CHECK ("queues"."max_attempt_seconds" IS NULL OR "queues"."max_attempt_seconds" BETWEEN 60 AND 604800);--> statement-breakpoint
-- Attempts already running when this ships count their ceiling from their last change.
UPDATE "tasks" SET "claimed_at" = "updated_at" WHERE "status" IN ('claimed', 'started');
