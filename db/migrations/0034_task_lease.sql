-- Issue 21, design q step 4a, piece 3b (docs/data-model.md): the lease in a table of its own.
-- A heartbeat moves a held task's lease. While the lease lived on task_held, whose
-- task_held_lease names it, no heartbeat's update of task_held could be HOT, so each one
-- inserted into every index of task_held, task_held_order and task_held_owner included: every
-- index the held set gained for a claim's or a board's read was paid again by every heartbeat.
-- task_lease holds what a heartbeat changes (the lease, and the ceiling's flag, set by a
-- heartbeat refused at the ceiling), with only the indexes that read the lease: a heartbeat
-- writes task_state (a HOT update since 0031) and task_lease, and never task_held. task_held
-- keeps what changes only when a task is claimed, reclaimed or let go.
CREATE TABLE "task_lease" (
	"id" bigint PRIMARY KEY NOT NULL,
	"queue" text NOT NULL,
	"lease_until" timestamp with time zone NOT NULL,
	"attempt_limited" boolean NOT NULL
);
--> statement-breakpoint
INSERT INTO "task_lease" (id, queue, lease_until, attempt_limited)
  SELECT id, queue, lease_until, attempt_limited FROM "task_held";
--> statement-breakpoint
-- "Has any lease in this queue lapsed?" (the claim's gate), the sweep and the inbox's lapsed list.
CREATE INDEX "task_lease_until" ON "task_lease" USING btree ("queue", "lease_until");--> statement-breakpoint
-- The few attempts that met their ceiling: a claim strikes their lapse before walking the queue.
CREATE INDEX "task_lease_attempt_limited" ON "task_lease" USING btree ("queue", "lease_until") WHERE "attempt_limited";--> statement-breakpoint
DROP INDEX "task_held_lease";--> statement-breakpoint
DROP INDEX "task_held_attempt_limited";--> statement-breakpoint
ALTER TABLE "task_held" DROP COLUMN "lease_until", DROP COLUMN "attempt_limited";--> statement-breakpoint
-- 0033's function, with the held row and the lease written apart: each only when what it holds
-- changed, so a heartbeat (lease_until) writes task_lease alone and a reclaim's new owner
-- task_held alone. The triggers (task_held_added, task_held_follows) and their WHEN clauses stay.
CREATE OR REPLACE FUNCTION task_held_follows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.status IN ('claimed', 'started') THEN
    IF NEW.status IN ('claimed', 'started') THEN
      IF (OLD.queue, OLD.priority, OLD.created_at, OLD.owner_id) IS DISTINCT FROM (NEW.queue, NEW.priority, NEW.created_at, NEW.owner_id) THEN
        UPDATE task_held
        SET queue = NEW.queue, priority = NEW.priority, created_at = NEW.created_at, owner_id = NEW.owner_id
        WHERE id = NEW.id;
      END IF;
      IF (OLD.queue, OLD.lease_until, OLD.attempt_limited) IS DISTINCT FROM (NEW.queue, NEW.lease_until, NEW.attempt_limited) THEN
        UPDATE task_lease
        SET queue = NEW.queue, lease_until = NEW.lease_until, attempt_limited = NEW.attempt_limited
        WHERE id = NEW.id;
      END IF;
    ELSE
      DELETE FROM task_held WHERE id = OLD.id;
      DELETE FROM task_lease WHERE id = OLD.id;
    END IF;
  ELSE
    INSERT INTO task_held (id, queue, priority, created_at, owner_id)
    VALUES (NEW.id, NEW.queue, NEW.priority, NEW.created_at, NEW.owner_id);
    INSERT INTO task_lease (id, queue, lease_until, attempt_limited)
    VALUES (NEW.id, NEW.queue, NEW.lease_until, NEW.attempt_limited);
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
ANALYZE task_held, task_lease;
