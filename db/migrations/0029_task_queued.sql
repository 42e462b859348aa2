-- Issue 21, design q's third step (docs/data-model.md): the claimable set in a table of its own.
-- The claim's two walks read tasks_queued_order and tasks_scheduled, partial indexes of
-- task_state on status = 'queued' and blocked_by = '{}': every claim changes status, so no
-- claim could be a HOT update of task_state while they were there. task_queued is that set:
-- a row for each queued task that waits on no dependency (ready now, or at its not_before),
-- with the columns the walks read, written only by the triggers below. As with task_held
-- (0028), task_state stays the record: a walk finds tasks here and locks and rechecks them there.
CREATE TABLE "task_queued" (
	"id" bigint PRIMARY KEY NOT NULL,
	"queue" text NOT NULL,
	"priority" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"not_before" timestamp with time zone
);
--> statement-breakpoint
-- The claim walk: ready tasks in claim order, stopping at its limit.
CREATE INDEX "task_queued_order" ON "task_queued" USING btree ("queue", "priority" DESC NULLS FIRST, "created_at", "id") WHERE "not_before" IS NULL;--> statement-breakpoint
-- Scheduled and backed-off tasks in not_before order: the walk stops at the first not yet due.
CREATE INDEX "task_queued_scheduled" ON "task_queued" USING btree ("queue", "not_before") WHERE "not_before" IS NOT NULL;--> statement-breakpoint
-- A create enters the set: once a statement, from its rows (a batch of creates is one INSERT).
CREATE FUNCTION task_queued_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO task_queued (id, queue, priority, created_at, not_before)
  SELECT id, queue, priority, created_at, not_before FROM added
  WHERE status = 'queued' AND blocked_by = '{}'::bigint[];
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER task_queued_added AFTER INSERT ON task_state
  REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION task_queued_added();
--> statement-breakpoint
-- Then the set follows each task: it enters when queued with nothing to wait for (created,
-- requeued, failed back, released, unblocked), follows its queue, priority and not_before, and
-- leaves when claimed, blocked or finished. Under the task row's lock, as task_held_follows.
CREATE FUNCTION task_queued_follows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status = 'queued' AND OLD.blocked_by = '{}'::bigint[] THEN
    IF NEW.status = 'queued' AND NEW.blocked_by = '{}'::bigint[] THEN
      UPDATE task_queued
      SET queue = NEW.queue, priority = NEW.priority, created_at = NEW.created_at, not_before = NEW.not_before
      WHERE id = NEW.id;
    ELSE
      DELETE FROM task_queued WHERE id = OLD.id;
    END IF;
  ELSE
    INSERT INTO task_queued (id, queue, priority, created_at, not_before)
    VALUES (NEW.id, NEW.queue, NEW.priority, NEW.created_at, NEW.not_before);
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER task_queued_follows AFTER UPDATE OF status, blocked_by, queue, priority, created_at, not_before ON task_state
  FOR EACH ROW
  WHEN ((OLD.status = 'queued' AND OLD.blocked_by = '{}'::bigint[]) <> (NEW.status = 'queued' AND NEW.blocked_by = '{}'::bigint[])
        OR (NEW.status = 'queued' AND NEW.blocked_by = '{}'::bigint[]
            AND (OLD.queue, OLD.priority, OLD.created_at, OLD.not_before)
                IS DISTINCT FROM (NEW.queue, NEW.priority, NEW.created_at, NEW.not_before)))
  EXECUTE FUNCTION task_queued_follows();
--> statement-breakpoint
INSERT INTO task_queued (id, queue, priority, created_at, not_before)
  SELECT id, queue, priority, created_at, not_before FROM task_state
  WHERE status = 'queued' AND blocked_by = '{}'::bigint[];
--> statement-breakpoint
DROP INDEX "tasks_queued_order";--> statement-breakpoint
DROP INDEX "tasks_scheduled";--> statement-breakpoint
-- Statistics now, not at autovacuum's first visit (0028 says why).
ANALYZE task_queued;
