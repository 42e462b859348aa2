ALTER TYPE "public"."event_type" ADD VALUE 'schedule_skipped';--> statement-breakpoint
CREATE TABLE "schedules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"cron" text NOT NULL,
	"timezone" text DEFAULT 'UTC' NOT NULL,
	"queue" text NOT NULL,
	"task" jsonb NOT NULL,
	"overlap" text DEFAULT 'skip' NOT NULL,
	"missed" text DEFAULT 'skip' NOT NULL,
	"paused" boolean DEFAULT false NOT NULL,
	"next_at" timestamp with time zone,
	"last_at" timestamp with time zone,
	"last_result" jsonb,
	"last_task_id" bigint,
	"created_by" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone,
	CONSTRAINT "schedules_overlap" CHECK ("schedules"."overlap" IN ('skip', 'allow')),
	CONSTRAINT "schedules_missed" CHECK ("schedules"."missed" IN ('skip', 'once'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "schedules_name" ON "schedules" USING btree ("name") WHERE "schedules"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX "schedules_due" ON "schedules" USING btree ("next_at") WHERE "schedules"."deleted_at" IS NULL AND NOT "schedules"."paused";