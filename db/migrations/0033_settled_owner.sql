-- Issue 21, design q step 4a, piece 3 (docs/data-model.md): no index of task_state names the owner
-- of a held task. tasks_owner (owner_id) changed on every claim (null to the claimer), so no
-- claim could be HOT. The owner of a held task is now found in the held set, task_held, which
-- gains owner_id and an index on it; task_state's index keys on settled_owner, the owner of a
-- task that is neither claimed nor started (awaiting_input, in_review, done, failed,
-- escalated), null while a task is queued (it has no owner, tasks_queued_has_no_owner) or held.
-- A claim, a reclaim and a start change neither value. "Mine" reads both (ownedBy in
-- lib/tasks/reads/queries.ts); together they hold every owned task, as tasks_owner did.
ALTER TABLE "task_held" ADD COLUMN "owner_id" uuid;--> statement-breakpoint
UPDATE "task_held" h SET "owner_id" = s."owner_id" FROM "task_state" s WHERE s."id" = h."id";--> statement-breakpoint
ALTER TABLE "task_held" ALTER COLUMN "owner_id" SET NOT NULL;--> statement-breakpoint
-- Presence renewal, "mine", and the fleet's held rows and "has it worked?": the tasks one actor holds.
CREATE INDEX "task_held_owner" ON "task_held" USING btree ("owner_id");--> statement-breakpoint
-- 0028's function, with the owner carried: a reclaim of a lapsed lease changes it.
CREATE OR REPLACE FUNCTION task_held_follows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.status IN ('claimed', 'started') THEN
    IF NEW.status IN ('claimed', 'started') THEN
      UPDATE task_held
      SET queue = NEW.queue, priority = NEW.priority, created_at = NEW.created_at,
          lease_until = NEW.lease_until, attempt_limited = NEW.attempt_limited, owner_id = NEW.owner_id
      WHERE id = NEW.id;
    ELSE
      DELETE FROM task_held WHERE id = OLD.id;
    END IF;
  ELSE
    INSERT INTO task_held (id, queue, priority, created_at, lease_until, attempt_limited, owner_id)
    VALUES (NEW.id, NEW.queue, NEW.priority, NEW.created_at, NEW.lease_until, NEW.attempt_limited, NEW.owner_id);
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
DROP TRIGGER task_held_follows ON task_state;--> statement-breakpoint
CREATE TRIGGER task_held_follows AFTER UPDATE OF status, queue, priority, created_at, lease_until, attempt_limited, owner_id ON task_state
  FOR EACH ROW
  WHEN (OLD.sets_mark = NEW.sets_mark
        AND ((OLD.status IN ('claimed', 'started')) <> (NEW.status IN ('claimed', 'started'))
             OR (NEW.status IN ('claimed', 'started')
                 AND (OLD.queue, OLD.priority, OLD.created_at, OLD.lease_until, OLD.attempt_limited, OLD.owner_id)
                     IS DISTINCT FROM (NEW.queue, NEW.priority, NEW.created_at, NEW.lease_until, NEW.attempt_limited, NEW.owner_id))))
  EXECUTE FUNCTION task_held_follows();
--> statement-breakpoint
-- Adding the stored generated column rewrites task_state once, filling it from each row.
ALTER TABLE "task_state" ADD COLUMN "settled_owner" uuid
  GENERATED ALWAYS AS (CASE WHEN "status" NOT IN ('claimed', 'started') THEN "owner_id" END) STORED;--> statement-breakpoint
DROP INDEX "tasks_owner";--> statement-breakpoint
CREATE INDEX "tasks_settled_owner" ON "task_state" USING btree ("settled_owner") WHERE "settled_owner" IS NOT NULL;--> statement-breakpoint
ANALYZE task_held;
