-- Issue 21, design q step 4, its first index: a heartbeat's update of task_state can be HOT.
-- PostgreSQL writes an update as HOT (no index entries) when no value any index names changes.
-- A plain heartbeat changes lease_until, updated_at and progress; of those, only updated_at was
-- named, by tasks_spent_done (insights' spend per done task), so no heartbeat was HOT: each one
-- inserted into the primary key, tasks_owner and both status indexes. The index now keys on
-- done_at: updated_at while the task is done, null otherwise, so it moves only when a done task
-- is written, and insights read the same rows as before (CHANGELOG.md, "a heartbeat
-- without index entries"). Its predicate names done_at too, not status: an index that names
-- status in its predicate stops a claim's update from being HOT as surely as one that keys on
-- it (docs/data-model.md).
-- Adding a stored generated column rewrites task_state once (under an exclusive lock), filling
-- done_at for every finished task from its own row.
ALTER TABLE "task_state" ADD COLUMN "done_at" timestamp with time zone
  GENERATED ALWAYS AS (CASE WHEN "status" = 'done' THEN "updated_at" END) STORED;--> statement-breakpoint
DROP INDEX "tasks_spent_done";--> statement-breakpoint
CREATE INDEX "tasks_spent_done" ON "task_state" USING btree ("queue", "done_at") WHERE "done_at" IS NOT NULL AND "spent" > 0;
