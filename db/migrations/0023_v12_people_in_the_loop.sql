CREATE TYPE "public"."review_policy" AS ENUM('none', 'agents', 'everyone');--> statement-breakpoint
CREATE TYPE "public"."question_kind" AS ENUM('agent', 'budget');--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'submitted';--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'approved';--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'rejected';--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'question_asked';--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'question_answered';--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'question_expired';--> statement-breakpoint
ALTER TYPE "public"."task_status" ADD VALUE 'in_review';--> statement-breakpoint
ALTER TYPE "public"."task_status" ADD VALUE 'awaiting_input';--> statement-breakpoint
CREATE TABLE "task_questions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "task_questions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"task_id" bigint NOT NULL,
	"kind" "question_kind" DEFAULT 'agent' NOT NULL,
	"question" text NOT NULL,
	"choices" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"attempt" integer NOT NULL,
	"asked_by_id" uuid NOT NULL,
	"asked_at" timestamp with time zone NOT NULL,
	"deadline" timestamp with time zone NOT NULL,
	"answer_text" text,
	"answer_choice" text,
	"answered_by_id" uuid,
	"answered_at" timestamp with time zone,
	"expired_at" timestamp with time zone,
	CONSTRAINT "task_questions_answered" CHECK (("task_questions"."answered_at" IS NULL) = ("task_questions"."answer_text" IS NULL) AND ("task_questions"."answered_at" IS NULL) = ("task_questions"."answered_by_id" IS NULL)),
	CONSTRAINT "task_questions_settled_once" CHECK ("task_questions"."answered_at" IS NULL OR "task_questions"."expired_at" IS NULL)
);
--> statement-breakpoint
CREATE TABLE "claim_tokens" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"token_hash" text NOT NULL,
	"agent_token_id" uuid NOT NULL,
	"task_id" bigint NOT NULL,
	"attempt" integer NOT NULL,
	"ops" text[] NOT NULL,
	"parent_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN "review" "review_policy" DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN "question_timeout_seconds" integer DEFAULT 86400 NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "reserves" jsonb;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "submission" jsonb;--> statement-breakpoint
ALTER TABLE "task_questions" ADD CONSTRAINT "task_questions_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_questions" ADD CONSTRAINT "task_questions_asked_by_id_actors_id_fk" FOREIGN KEY ("asked_by_id") REFERENCES "public"."actors"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_questions" ADD CONSTRAINT "task_questions_answered_by_id_actors_id_fk" FOREIGN KEY ("answered_by_id") REFERENCES "public"."actors"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "claim_tokens" ADD CONSTRAINT "claim_tokens_agent_token_id_agent_tokens_id_fk" FOREIGN KEY ("agent_token_id") REFERENCES "public"."agent_tokens"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "claim_tokens" ADD CONSTRAINT "claim_tokens_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "claim_tokens" ADD CONSTRAINT "claim_tokens_parent_id_claim_tokens_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."claim_tokens"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "task_questions_task" ON "task_questions" USING btree ("task_id","id");--> statement-breakpoint
CREATE INDEX "task_questions_open" ON "task_questions" USING btree ("deadline") WHERE "task_questions"."answered_at" IS NULL AND "task_questions"."expired_at" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "claim_tokens_hash_unique" ON "claim_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "claim_tokens_task" ON "claim_tokens" USING btree ("task_id","attempt");--> statement-breakpoint
CREATE INDEX "tasks_reserving" ON "tasks" USING btree ("status","queue") WHERE "tasks"."reserves" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "queues" ADD CONSTRAINT "queues_question_timeout_seconds_range" CHECK ("queues"."question_timeout_seconds" BETWEEN 60 AND 604800);--> statement-breakpoint
-- docs/contract.md#reservations: `a` covers `b` when they are the same resource, or `a` ends in
-- `/**` and `b` is that path or under it. lib/tasks/core/reservation.ts `covers` is
-- the same test in TypeScript.
CREATE FUNCTION reservation_covers(a text, b text) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN a = b OR (right(a, 3) = '/**' AND (b = left(a, -3) OR starts_with(b, left(a, -3) || '/')));
