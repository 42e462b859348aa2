-- Issue 21, design q step 4a, piece 2 (docs/data-model.md): the reservations' index names no
-- status of a task that reserves nothing. tasks_reserving (status, queue) WHERE reserves IS NOT
-- NULL named status for every task: PostgreSQL decides HOT by the columns an index names, in
-- its key or its predicate, whether or not the row is in it, so every claim and completion had
-- to leave it as a reason not to be HOT. It keys now on reserving_status, the status of a task
-- that reserves and null for one that does not: a loop task's value never changes. It holds
-- the same rows, and every reader asks it the same questions (lib/tasks/reservations/held.ts,
-- lib/tasks/claiming/breaker.ts). Adding the stored generated column rewrites task_state once,
-- filling it for every task from its own row.
ALTER TABLE "task_state" ADD COLUMN "reserving_status" "task_status"
  GENERATED ALWAYS AS (CASE WHEN "reserves" IS NOT NULL THEN "status" END) STORED;--> statement-breakpoint
DROP INDEX "tasks_reserving";--> statement-breakpoint
CREATE INDEX "tasks_reserving" ON "task_state" USING btree ("reserving_status", "queue") WHERE "reserving_status" IS NOT NULL;
