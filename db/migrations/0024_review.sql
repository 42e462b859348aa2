CREATE TYPE "public"."review_policy" AS ENUM('none', 'agents', 'everyone');--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'submitted';--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'approved';--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'rejected';--> statement-breakpoint
ALTER TYPE "public"."task_status" ADD VALUE 'in_review';--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN "review" "review_policy" DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "submission" jsonb;