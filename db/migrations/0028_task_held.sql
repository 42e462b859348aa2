-- Issue 21, design q's second step (docs/data-model.md): the held set in a table of its own.
-- Three indexes of task_state held only claimed and started tasks (tasks_held_order,
-- tasks_held_lease, tasks_attempt_limited), and named status and lease_until: every claim,
-- start, heartbeat and completion changed a column they name, so no such update of task_state
-- could be HOT (docs/engine.md). task_held is that set: a row for each held task, with the
-- columns its walks read, written only by the trigger below. task_state stays the record:
-- status, owner and lease are read and locked there, and a walk of task_held rechecks them
-- on the row it locks.
CREATE TABLE "task_held" (
	"id" bigint PRIMARY KEY NOT NULL,
	"queue" text NOT NULL,
	"priority" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"lease_until" timestamp with time zone NOT NULL,
	"attempt_limited" boolean NOT NULL
);
--> statement-breakpoint
-- The claim's walk of lapsed leases, in claim order, stopping at its limit.
CREATE INDEX "task_held_order" ON "task_held" USING btree ("queue", "priority" DESC NULLS FIRST, "created_at", "id");--> statement-breakpoint
-- "Has any lease in this queue lapsed?" (the claim's gate), the sweep and the inbox's lapsed list.
CREATE INDEX "task_held_lease" ON "task_held" USING btree ("queue", "lease_until");--> statement-breakpoint
-- The few attempts that met their ceiling: a claim strikes their lapse before walking the queue.
CREATE INDEX "task_held_attempt_limited" ON "task_held" USING btree ("queue", "lease_until") WHERE "attempt_limited";--> statement-breakpoint
-- The held set follows task_state: a task enters it when it becomes claimed or started, its
-- row follows its lease, and it leaves when the task becomes anything else. A trigger, so that
-- every writer of task_state (the engine's ~25 statements, the view's INSTEAD OF triggers,
-- an operator's psql) keeps the set exact; it runs under the task row's own lock, so two
-- writers of one task's held row never meet. The WHEN clauses keep updates that change
-- nothing the set holds (a start, a progress note, a budget) from calling it at all.
CREATE FUNCTION task_held_follows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.status IN ('claimed', 'started') THEN
    IF NEW.status IN ('claimed', 'started') THEN
      UPDATE task_held
      SET queue = NEW.queue, priority = NEW.priority, created_at = NEW.created_at,
          lease_until = NEW.lease_until, attempt_limited = NEW.attempt_limited
      WHERE id = NEW.id;
    ELSE
      DELETE FROM task_held WHERE id = OLD.id;
    END IF;
  ELSE
    INSERT INTO task_held (id, queue, priority, created_at, lease_until, attempt_limited)
    VALUES (NEW.id, NEW.queue, NEW.priority, NEW.created_at, NEW.lease_until, NEW.attempt_limited);
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER task_held_added AFTER INSERT ON task_state
  FOR EACH ROW
  WHEN (NEW.status IN ('claimed', 'started'))
  EXECUTE FUNCTION task_held_follows();
--> statement-breakpoint
CREATE TRIGGER task_held_follows AFTER UPDATE OF status, queue, priority, created_at, lease_until, attempt_limited ON task_state
  FOR EACH ROW
  WHEN ((OLD.status IN ('claimed', 'started')) <> (NEW.status IN ('claimed', 'started'))
        OR (NEW.status IN ('claimed', 'started')
            AND (OLD.queue, OLD.priority, OLD.created_at, OLD.lease_until, OLD.attempt_limited)
                IS DISTINCT FROM (NEW.queue, NEW.priority, NEW.created_at, NEW.lease_until, NEW.attempt_limited)))
  EXECUTE FUNCTION task_held_follows();
--> statement-breakpoint
INSERT INTO task_held (id, queue, priority, created_at, lease_until, attempt_limited)
  SELECT id, queue, priority, created_at, lease_until, attempt_limited FROM task_state
  WHERE status IN ('claimed', 'started');
--> statement-breakpoint
DROP INDEX "tasks_held_order";--> statement-breakpoint
DROP INDEX "tasks_held_lease";--> statement-breakpoint
DROP INDEX "tasks_attempt_limited";
--> statement-breakpoint
-- Statistics now, not at autovacuum's first visit: without them the lapsed walk is planned as a sort.
ANALYZE task_held;
