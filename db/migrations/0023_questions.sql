CREATE TYPE "public"."question_kind" AS ENUM('agent', 'budget');--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'question_asked';--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'question_answered';--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'question_expired';--> statement-breakpoint
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
ALTER TABLE "queues" ADD COLUMN "question_timeout_seconds" integer DEFAULT 86400 NOT NULL;--> statement-breakpoint
ALTER TABLE "task_questions" ADD CONSTRAINT "task_questions_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_questions" ADD CONSTRAINT "task_questions_asked_by_id_actors_id_fk" FOREIGN KEY ("asked_by_id") REFERENCES "public"."actors"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_questions" ADD CONSTRAINT "task_questions_answered_by_id_actors_id_fk" FOREIGN KEY ("answered_by_id") REFERENCES "public"."actors"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "task_questions_task" ON "task_questions" USING btree ("task_id","id");--> statement-breakpoint
CREATE INDEX "task_questions_open" ON "task_questions" USING btree ("deadline") WHERE "task_questions"."answered_at" IS NULL AND "task_questions"."expired_at" IS NULL;--> statement-breakpoint
ALTER TABLE "queues" ADD CONSTRAINT "queues_question_timeout_seconds_range" CHECK ("queues"."question_timeout_seconds" BETWEEN 60 AND 604800);