-- Issue 21, design q: the loop's own statements write their set rows (docs/data-model.md; step 4's
-- first part). The set triggers (0028, 0029) cost the loop ~80-100 µs a task, against ~30 µs for
-- the same rows written beside the UPDATE in its statement (CHANGELOG.md, "design q, step 3").
-- A statement that writes a task's task_queued and task_held rows itself bumps that task's
-- sets_mark in the same UPDATE, and the triggers run only where sets_mark did not change: so
-- every other writer (the engine's other statements, the view's triggers, an operator's psql)
-- keeps the sets exact as before, and the claim and the completion do not pay for a trigger.
ALTER TABLE "task_state" ADD COLUMN "sets_mark" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
DROP TRIGGER task_held_follows ON task_state;--> statement-breakpoint
CREATE TRIGGER task_held_follows AFTER UPDATE OF status, queue, priority, created_at, lease_until, attempt_limited ON task_state
  FOR EACH ROW
  WHEN (OLD.sets_mark = NEW.sets_mark
        AND ((OLD.status IN ('claimed', 'started')) <> (NEW.status IN ('claimed', 'started'))
             OR (NEW.status IN ('claimed', 'started')
                 AND (OLD.queue, OLD.priority, OLD.created_at, OLD.lease_until, OLD.attempt_limited)
                     IS DISTINCT FROM (NEW.queue, NEW.priority, NEW.created_at, NEW.lease_until, NEW.attempt_limited))))
  EXECUTE FUNCTION task_held_follows();
--> statement-breakpoint
DROP TRIGGER task_queued_follows ON task_state;--> statement-breakpoint
CREATE TRIGGER task_queued_follows AFTER UPDATE OF status, blocked_by, queue, priority, created_at, not_before ON task_state
  FOR EACH ROW
  WHEN (OLD.sets_mark = NEW.sets_mark
        AND ((OLD.status = 'queued' AND OLD.blocked_by = '{}'::bigint[]) <> (NEW.status = 'queued' AND NEW.blocked_by = '{}'::bigint[])
             OR (NEW.status = 'queued' AND NEW.blocked_by = '{}'::bigint[]
                 AND (OLD.queue, OLD.priority, OLD.created_at, OLD.not_before)
                     IS DISTINCT FROM (NEW.queue, NEW.priority, NEW.created_at, NEW.not_before))))
  EXECUTE FUNCTION task_queued_follows();
