ALTER TYPE "public"."event_type" ADD VALUE 'dependency_added';--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'unblocked';--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'queue_paused';--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'queue_resumed';--> statement-breakpoint
DROP INDEX "tasks_queued_order";--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN "retry_delay_seconds" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN "paused" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN "paused_by" uuid;--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN "paused_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "depends_on" bigint[] DEFAULT '{}'::bigint[] NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "blocked_by" bigint[] DEFAULT '{}'::bigint[] NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "not_before" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
ALTER TABLE "queues" ADD CONSTRAINT "queues_paused_by_actors_id_fk" FOREIGN KEY ("paused_by") REFERENCES "public"."actors"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tasks_scheduled" ON "tasks" USING btree ("queue","not_before") WHERE "tasks"."status" = 'queued' AND "tasks"."blocked_by" = '{}'::bigint[] AND "tasks"."not_before" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "tasks_blocked_by" ON "tasks" USING gin ("blocked_by") WHERE "tasks"."blocked_by" <> '{}'::bigint[];--> statement-breakpoint
CREATE INDEX "tasks_depends_on" ON "tasks" USING gin ("depends_on") WHERE "tasks"."depends_on" <> '{}'::bigint[];--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_idempotency_key" ON "tasks" USING btree ("queue","idempotency_key") WHERE "tasks"."idempotency_key" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "tasks_queued_order" ON "tasks" USING btree ("queue","priority" DESC NULLS FIRST,"created_at","id") WHERE "tasks"."status" = 'queued' AND "tasks"."blocked_by" = '{}'::bigint[] AND "tasks"."not_before" IS NULL;--> statement-breakpoint
ALTER TABLE "queues" ADD CONSTRAINT "queues_retry_delay_range" CHECK ("queues"."retry_delay_seconds" BETWEEN 0 AND 86400);--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_dependencies_bound" CHECK (cardinality("tasks"."depends_on") <= 1000 AND "tasks"."blocked_by" <@ "tasks"."depends_on");