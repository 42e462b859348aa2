CREATE TYPE "public"."actor_kind" AS ENUM('user', 'agent', 'system');--> statement-breakpoint
CREATE TYPE "public"."event_type" AS ENUM('created', 'claimed', 'claim_rejected', 'started', 'check_confirmed', 'heartbeat', 'side_effect', 'released', 'lease_expired', 'failed', 'escalated', 'requeued', 'resolved', 'completed', 'cancelled', 'breaker_tripped', 'breaker_reset');--> statement-breakpoint
CREATE TYPE "public"."task_status" AS ENUM('queued', 'claimed', 'started', 'done', 'escalated', 'cancelled');--> statement-breakpoint
CREATE TABLE "actors" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" "actor_kind" NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "queues" (
	"name" text PRIMARY KEY NOT NULL,
	"lease_seconds" integer DEFAULT 120 NOT NULL,
	"max_failures" integer DEFAULT 3 NOT NULL,
	"expiry_threshold" integer DEFAULT 100 NOT NULL,
	"expiry_window_seconds" integer DEFAULT 300 NOT NULL,
	"breaker_tripped_at" timestamp with time zone,
	"breaker_reason" text,
	"breaker_reset_event_id" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "queues_name_format" CHECK ("queues"."name" ~ '^[a-z0-9._-]{1,64}$'),
	CONSTRAINT "queues_lease_seconds_range" CHECK ("queues"."lease_seconds" BETWEEN 5 AND 3600),
	CONSTRAINT "queues_max_failures_range" CHECK ("queues"."max_failures" BETWEEN 1 AND 100),
	CONSTRAINT "queues_expiry_threshold_range" CHECK ("queues"."expiry_threshold" BETWEEN 1 AND 1000000),
	CONSTRAINT "queues_expiry_window_range" CHECK ("queues"."expiry_window_seconds" BETWEEN 1 AND 86400)
);
--> statement-breakpoint
CREATE TABLE "task_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "task_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"task_id" bigint,
	"queue" text NOT NULL,
	"type" "event_type" NOT NULL,
	"actor_id" uuid NOT NULL,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"tx_id" "xid8" DEFAULT pg_current_xact_id() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "tasks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"queue" text NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"priority" integer DEFAULT 0 NOT NULL,
	"status" "task_status" DEFAULT 'queued' NOT NULL,
	"owner_id" uuid,
	"lease_until" timestamp with time zone,
	"lease_seconds" integer,
	"version" integer DEFAULT 1 NOT NULL,
	"failure_count" integer DEFAULT 0 NOT NULL,
	"needs_check" boolean DEFAULT false NOT NULL,
	"side_effect_recorded" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tasks_held_has_owner_and_lease" CHECK (("tasks"."status" IN ('claimed', 'started')) = ("tasks"."lease_until" IS NOT NULL AND "tasks"."lease_seconds" IS NOT NULL)
          AND ("tasks"."status" NOT IN ('claimed', 'started') OR "tasks"."owner_id" IS NOT NULL)),
	CONSTRAINT "tasks_queued_has_no_owner" CHECK ("tasks"."status" <> 'queued' OR "tasks"."owner_id" IS NULL),
	CONSTRAINT "tasks_version_positive" CHECK ("tasks"."version" >= 1),
	CONSTRAINT "tasks_failure_count_nonnegative" CHECK ("tasks"."failure_count" >= 0)
);
--> statement-breakpoint
ALTER TABLE "task_events" ADD CONSTRAINT "task_events_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_events" ADD CONSTRAINT "task_events_queue_queues_name_fk" FOREIGN KEY ("queue") REFERENCES "public"."queues"("name") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_events" ADD CONSTRAINT "task_events_actor_id_actors_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."actors"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_queue_queues_name_fk" FOREIGN KEY ("queue") REFERENCES "public"."queues"("name") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_owner_id_actors_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."actors"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "task_events_task" ON "task_events" USING btree ("task_id","id");--> statement-breakpoint
CREATE INDEX "task_events_queue_time" ON "task_events" USING btree ("queue","created_at");--> statement-breakpoint
CREATE INDEX "task_events_expiries" ON "task_events" USING btree ("queue","created_at") WHERE "task_events"."type" = 'lease_expired';--> statement-breakpoint
CREATE INDEX "tasks_queued_order" ON "tasks" USING btree ("queue","priority" DESC NULLS FIRST,"created_at","id") WHERE "tasks"."status" = 'queued';--> statement-breakpoint
CREATE INDEX "tasks_held_order" ON "tasks" USING btree ("queue","priority" DESC NULLS FIRST,"created_at","id") WHERE "tasks"."status" IN ('claimed', 'started');--> statement-breakpoint
CREATE INDEX "tasks_owner" ON "tasks" USING btree ("owner_id") WHERE "tasks"."owner_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "tasks_queue_status" ON "tasks" USING btree ("queue","status","id");