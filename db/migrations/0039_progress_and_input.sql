-- Leases that may demand progress, and input read before done (contract v1.3, docs/leases.md).
ALTER TYPE "public"."event_type" ADD VALUE 'acknowledged';--> statement-breakpoint
-- 0 (the default) is off: a renewal then writes the counter's 0 and checks nothing more.
ALTER TABLE "queues" ADD COLUMN "max_renewals_without_progress" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "queues" ADD CONSTRAINT "queues_max_renewals_without_progress_range" CHECK ("queues"."max_renewals_without_progress" BETWEEN 0 AND 10000);--> statement-breakpoint
-- Renewals in a row that brought no new progress in the current attempt (reset by a changed
-- progress, an effect, a question; a checkpoint is found in the log when the limit is met).
-- On task_state beside progress, which the renewal already writes; no index names it, so the
-- renewal stays HOT. Not in the view `tasks`.
ALTER TABLE "task_state" ADD COLUMN "renewals_without_progress" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- The id of the earliest comment the holder has not acknowledged (null: nothing unread). A
-- comment by anyone but the holder sets it; the holder's ack moves it past what it read.
-- Guards of complete and of a new effect intent read it; only when it is set do they look at
-- the log. Not in the view `tasks`.
ALTER TABLE "task_state" ADD COLUMN "unread_from" bigint;
