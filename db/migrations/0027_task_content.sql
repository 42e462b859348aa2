-- Issue 21, design q's first step (docs/data-model.md): what a person writes leaves the row the
-- loop rewrites. A claim, start, heartbeat or completion wrote a new version of the whole task
-- row, its title, description and payload with it (the largest part of the row a real task
-- carries). The row the loop writes is now task_state (the old table, renamed, so its keys,
-- indexes, checks and identity stay as they were); the words are in task_content, written by
-- a create and an edit only. `tasks` is a view of the two, so every read keeps its shape.
ALTER TABLE "tasks" RENAME TO "task_state";--> statement-breakpoint
CREATE TABLE "task_content" (
	"id" bigint PRIMARY KEY NOT NULL REFERENCES "task_state"("id"),
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
INSERT INTO task_content (id, title, description, payload) SELECT id, title, description, payload FROM task_state;
--> statement-breakpoint
-- The search's triggers (0025) follow the words to their table; their functions read the same columns.
DROP TRIGGER tasks_search_added ON task_state;--> statement-breakpoint
DROP TRIGGER tasks_search_edited ON task_state;--> statement-breakpoint
CREATE TRIGGER tasks_search_added AFTER INSERT ON task_content
  REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION tasks_search_added();
--> statement-breakpoint
CREATE TRIGGER tasks_search_edited AFTER UPDATE OF title, description, payload ON task_content
  FOR EACH ROW
  WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.description IS DISTINCT FROM NEW.description OR OLD.payload IS DISTINCT FROM NEW.payload)
  EXECUTE FUNCTION tasks_search_edited();
--> statement-breakpoint
-- A column dropped is gone from every new version at once; old versions keep their bytes until rewritten.
ALTER TABLE task_state DROP COLUMN title, DROP COLUMN description, DROP COLUMN payload;--> statement-breakpoint
-- The task as every reader knows it, its columns in their old order. A LEFT JOIN (every state
-- row has its content: both are written in one statement) so that a read of state columns only,
-- a count by status, never visits task_content: PostgreSQL removes a left join nobody reads.
CREATE VIEW "tasks" AS
  SELECT s.id, s.queue, c.title, c.description, c.payload, s.priority, s.status, s.owner_id,
         s.lease_until, s.lease_seconds, s.version, s.failure_count, s.needs_check,
         s.side_effect_recorded, s.created_at, s.updated_at, s.claimed_at, s.attempt_limited,
         s.progress, s.progress_at, s.handoff, s.handoff_at, s.depends_on, s.blocked_by,
         s.not_before, s.idempotency_key, s.attempt, s.intended_effects, s.unknown_effects,
         s.reserves, s.submission, s.budget_limit, s.budget_unit, s.spent
  FROM task_state s LEFT JOIN task_content c ON c.id = s.id;
--> statement-breakpoint
-- Hand-written SQL (tests, seeds, an operator's psql) may still insert into and update `tasks`:
-- these triggers write the two tables. The engine never goes through them: it writes task_state
-- and task_content itself (lib/tasks), in statements whose locks it chooses.
ALTER VIEW tasks ALTER COLUMN description SET DEFAULT '';--> statement-breakpoint
ALTER VIEW tasks ALTER COLUMN payload SET DEFAULT '{}'::jsonb;--> statement-breakpoint
ALTER VIEW tasks ALTER COLUMN priority SET DEFAULT 0;--> statement-breakpoint
ALTER VIEW tasks ALTER COLUMN status SET DEFAULT 'queued';--> statement-breakpoint
ALTER VIEW tasks ALTER COLUMN version SET DEFAULT 1;--> statement-breakpoint
ALTER VIEW tasks ALTER COLUMN failure_count SET DEFAULT 0;--> statement-breakpoint
ALTER VIEW tasks ALTER COLUMN needs_check SET DEFAULT false;--> statement-breakpoint
ALTER VIEW tasks ALTER COLUMN side_effect_recorded SET DEFAULT false;--> statement-breakpoint
ALTER VIEW tasks ALTER COLUMN created_at SET DEFAULT now();--> statement-breakpoint
ALTER VIEW tasks ALTER COLUMN updated_at SET DEFAULT now();--> statement-breakpoint
ALTER VIEW tasks ALTER COLUMN attempt_limited SET DEFAULT false;--> statement-breakpoint
ALTER VIEW tasks ALTER COLUMN depends_on SET DEFAULT '{}'::bigint[];--> statement-breakpoint
ALTER VIEW tasks ALTER COLUMN blocked_by SET DEFAULT '{}'::bigint[];--> statement-breakpoint
ALTER VIEW tasks ALTER COLUMN attempt SET DEFAULT 0;--> statement-breakpoint
ALTER VIEW tasks ALTER COLUMN intended_effects SET DEFAULT 0;--> statement-breakpoint
ALTER VIEW tasks ALTER COLUMN unknown_effects SET DEFAULT 0;--> statement-breakpoint
ALTER VIEW tasks ALTER COLUMN spent SET DEFAULT 0;--> statement-breakpoint
CREATE FUNCTION tasks_view_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.id := coalesce(NEW.id, nextval(pg_get_serial_sequence('task_state', 'id')));
  INSERT INTO task_state (id, queue, priority, status, owner_id, lease_until, lease_seconds, version,
    failure_count, needs_check, side_effect_recorded, created_at, updated_at, claimed_at, attempt_limited,
    progress, progress_at, handoff, handoff_at, depends_on, blocked_by, not_before, idempotency_key,
    attempt, intended_effects, unknown_effects, reserves, submission, budget_limit, budget_unit, spent)
  OVERRIDING SYSTEM VALUE
  VALUES (NEW.id, NEW.queue, NEW.priority, NEW.status, NEW.owner_id, NEW.lease_until, NEW.lease_seconds, NEW.version,
    NEW.failure_count, NEW.needs_check, NEW.side_effect_recorded, NEW.created_at, NEW.updated_at, NEW.claimed_at, NEW.attempt_limited,
    NEW.progress, NEW.progress_at, NEW.handoff, NEW.handoff_at, NEW.depends_on, NEW.blocked_by, NEW.not_before, NEW.idempotency_key,
    NEW.attempt, NEW.intended_effects, NEW.unknown_effects, NEW.reserves, NEW.submission, NEW.budget_limit, NEW.budget_unit, NEW.spent);
  INSERT INTO task_content (id, title, description, payload) VALUES (NEW.id, NEW.title, NEW.description, NEW.payload);
  RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER tasks_view_insert INSTEAD OF INSERT ON tasks FOR EACH ROW EXECUTE FUNCTION tasks_view_insert();
--> statement-breakpoint
-- Only the columns the statement changed are written; the others keep the row's current values,
-- so a hand-written UPDATE racing the engine (a test expiring a lease) loses none of its writes.
CREATE FUNCTION tasks_view_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id IS DISTINCT FROM OLD.id THEN
    RAISE EXCEPTION 'a task''s id does not change' USING ERRCODE = 'check_violation';
  END IF;
  UPDATE task_state s SET
    queue = CASE WHEN NEW.queue IS DISTINCT FROM OLD.queue THEN NEW.queue ELSE s.queue END,
    priority = CASE WHEN NEW.priority IS DISTINCT FROM OLD.priority THEN NEW.priority ELSE s.priority END,
    status = CASE WHEN NEW.status IS DISTINCT FROM OLD.status THEN NEW.status ELSE s.status END,
    owner_id = CASE WHEN NEW.owner_id IS DISTINCT FROM OLD.owner_id THEN NEW.owner_id ELSE s.owner_id END,
    lease_until = CASE WHEN NEW.lease_until IS DISTINCT FROM OLD.lease_until THEN NEW.lease_until ELSE s.lease_until END,
    lease_seconds = CASE WHEN NEW.lease_seconds IS DISTINCT FROM OLD.lease_seconds THEN NEW.lease_seconds ELSE s.lease_seconds END,
    version = CASE WHEN NEW.version IS DISTINCT FROM OLD.version THEN NEW.version ELSE s.version END,
    failure_count = CASE WHEN NEW.failure_count IS DISTINCT FROM OLD.failure_count THEN NEW.failure_count ELSE s.failure_count END,
    needs_check = CASE WHEN NEW.needs_check IS DISTINCT FROM OLD.needs_check THEN NEW.needs_check ELSE s.needs_check END,
    side_effect_recorded = CASE WHEN NEW.side_effect_recorded IS DISTINCT FROM OLD.side_effect_recorded THEN NEW.side_effect_recorded ELSE s.side_effect_recorded END,
    created_at = CASE WHEN NEW.created_at IS DISTINCT FROM OLD.created_at THEN NEW.created_at ELSE s.created_at END,
    updated_at = CASE WHEN NEW.updated_at IS DISTINCT FROM OLD.updated_at THEN NEW.updated_at ELSE s.updated_at END,
    claimed_at = CASE WHEN NEW.claimed_at IS DISTINCT FROM OLD.claimed_at THEN NEW.claimed_at ELSE s.claimed_at END,
    attempt_limited = CASE WHEN NEW.attempt_limited IS DISTINCT FROM OLD.attempt_limited THEN NEW.attempt_limited ELSE s.attempt_limited END,
    progress = CASE WHEN NEW.progress IS DISTINCT FROM OLD.progress THEN NEW.progress ELSE s.progress END,
    progress_at = CASE WHEN NEW.progress_at IS DISTINCT FROM OLD.progress_at THEN NEW.progress_at ELSE s.progress_at END,
    handoff = CASE WHEN NEW.handoff IS DISTINCT FROM OLD.handoff THEN NEW.handoff ELSE s.handoff END,
    handoff_at = CASE WHEN NEW.handoff_at IS DISTINCT FROM OLD.handoff_at THEN NEW.handoff_at ELSE s.handoff_at END,
    depends_on = CASE WHEN NEW.depends_on IS DISTINCT FROM OLD.depends_on THEN NEW.depends_on ELSE s.depends_on END,
    blocked_by = CASE WHEN NEW.blocked_by IS DISTINCT FROM OLD.blocked_by THEN NEW.blocked_by ELSE s.blocked_by END,
    not_before = CASE WHEN NEW.not_before IS DISTINCT FROM OLD.not_before THEN NEW.not_before ELSE s.not_before END,
    idempotency_key = CASE WHEN NEW.idempotency_key IS DISTINCT FROM OLD.idempotency_key THEN NEW.idempotency_key ELSE s.idempotency_key END,
    attempt = CASE WHEN NEW.attempt IS DISTINCT FROM OLD.attempt THEN NEW.attempt ELSE s.attempt END,
    intended_effects = CASE WHEN NEW.intended_effects IS DISTINCT FROM OLD.intended_effects THEN NEW.intended_effects ELSE s.intended_effects END,
    unknown_effects = CASE WHEN NEW.unknown_effects IS DISTINCT FROM OLD.unknown_effects THEN NEW.unknown_effects ELSE s.unknown_effects END,
    reserves = CASE WHEN NEW.reserves IS DISTINCT FROM OLD.reserves THEN NEW.reserves ELSE s.reserves END,
    submission = CASE WHEN NEW.submission IS DISTINCT FROM OLD.submission THEN NEW.submission ELSE s.submission END,
    budget_limit = CASE WHEN NEW.budget_limit IS DISTINCT FROM OLD.budget_limit THEN NEW.budget_limit ELSE s.budget_limit END,
    budget_unit = CASE WHEN NEW.budget_unit IS DISTINCT FROM OLD.budget_unit THEN NEW.budget_unit ELSE s.budget_unit END,
    spent = CASE WHEN NEW.spent IS DISTINCT FROM OLD.spent THEN NEW.spent ELSE s.spent END
  WHERE s.id = OLD.id;
  IF (NEW.title, NEW.description, NEW.payload) IS DISTINCT FROM (OLD.title, OLD.description, OLD.payload) THEN
    UPDATE task_content SET title = NEW.title, description = NEW.description, payload = NEW.payload WHERE id = OLD.id;
  END IF;
  RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER tasks_view_update INSTEAD OF UPDATE ON tasks FOR EACH ROW EXECUTE FUNCTION tasks_view_update();
--> statement-breakpoint
-- The words are the log's too (its created and edited events name them): no TRUNCATE (0017).
CREATE TRIGGER task_content_no_truncate BEFORE TRUNCATE ON task_content
  FOR EACH STATEMENT EXECUTE FUNCTION task_events_referents_no_truncate();
