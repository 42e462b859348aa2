CREATE TABLE "server_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"secret" text DEFAULT replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', '') NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN "lock_delay_seconds" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "attempt" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "queues" ADD CONSTRAINT "queues_lock_delay_seconds_range" CHECK ("queues"."lock_delay_seconds" BETWEEN 0 AND 3600);--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_attempt_nonnegative" CHECK ("tasks"."attempt" >= 0);--> statement-breakpoint
-- Hand-written: a task held when this runs is in its first numbered holding (no fence names an earlier one).
UPDATE "tasks" SET "attempt" = 1 WHERE "status" IN ('claimed', 'started');
