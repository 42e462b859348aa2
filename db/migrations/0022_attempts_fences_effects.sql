CREATE TYPE "public"."effect_state" AS ENUM('intended', 'applied', 'failed', 'unknown');--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'effect_intended';--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'effect_resolved';--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'effect_unknown';--> statement-breakpoint
CREATE TABLE "server_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"secret" text DEFAULT replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', '') NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "task_effects" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "task_effects_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"task_id" bigint NOT NULL,
	"name" text NOT NULL,
	"key" text,
	"idempotency_key" text NOT NULL,
	"target" text,
	"detail" jsonb,
	"state" "effect_state" DEFAULT 'intended' NOT NULL,
	"attempt" integer NOT NULL,
	"by_id" uuid NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"resolved_by_id" uuid,
	"resolved_at" timestamp with time zone,
	"external_ref" text,
	"note" text,
	"via_side_effect" boolean DEFAULT false NOT NULL,
	CONSTRAINT "task_effects_resolved" CHECK (("task_effects"."state" IN ('applied', 'failed')) = ("task_effects"."resolved_at" IS NOT NULL))
);
--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN "lock_delay_seconds" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "attempt" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "intended_effects" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "unknown_effects" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "task_effects" ADD CONSTRAINT "task_effects_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_effects" ADD CONSTRAINT "task_effects_by_id_actors_id_fk" FOREIGN KEY ("by_id") REFERENCES "public"."actors"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_effects" ADD CONSTRAINT "task_effects_resolved_by_id_actors_id_fk" FOREIGN KEY ("resolved_by_id") REFERENCES "public"."actors"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "task_effects_key" ON "task_effects" USING btree ("task_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "task_effects_open" ON "task_effects" USING btree ("task_id","id") WHERE "task_effects"."state" IN ('intended', 'unknown');--> statement-breakpoint
ALTER TABLE "queues" ADD CONSTRAINT "queues_lock_delay_seconds_range" CHECK ("queues"."lock_delay_seconds" BETWEEN 0 AND 3600);--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_attempt_nonnegative" CHECK ("tasks"."attempt" >= 0);--> statement-breakpoint
-- Hand-written: a task held when this runs is in its first numbered holding (no fence names an earlier one).
UPDATE "tasks" SET "attempt" = 1 WHERE "status" IN ('claimed', 'started');
