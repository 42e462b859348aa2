-- task_events partitioned by month on created_at, so whole months can be retired (`npm run cli --
-- events archive`, docs/engine.md "Retiring the log"). Hand-written: drizzle-kit knows no partitions.
ALTER TYPE "public"."event_type" ADD VALUE 'events_archived';--> statement-breakpoint
-- The old table steps aside; its index names are the new parent's, so they go first.
ALTER TABLE task_events RENAME TO task_events_unpartitioned;--> statement-breakpoint
ALTER TABLE task_events_unpartitioned RENAME CONSTRAINT task_events_pkey TO task_events_unpartitioned_pkey;--> statement-breakpoint
DROP INDEX task_events_task, task_events_feed, task_events_queue_time, task_events_expiries, task_events_queue_facts,
  task_events_actor_time, task_events_actor_outcomes, task_events_lapsed_owner;--> statement-breakpoint
-- PostgreSQL 15 has no identity on a partitioned table, and an identity's sequence cannot change
-- owner: a plain sequence of the same name continues where the identity stopped.
DO $$
DECLARE
  last_id bigint := (SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM task_events_id_seq);
BEGIN
  ALTER TABLE task_events_unpartitioned ALTER COLUMN id DROP IDENTITY;
  CREATE SEQUENCE task_events_id_seq AS bigint;
  last_id := greatest(last_id, (SELECT coalesce(max(id), 0) FROM task_events_unpartitioned));
  IF last_id > 0 THEN PERFORM setval('task_events_id_seq', last_id); END IF;
END $$;--> statement-breakpoint
CREATE TABLE task_events (
  id bigint NOT NULL DEFAULT nextval('task_events_id_seq'),
  task_id bigint,
  queue text NOT NULL,
  type event_type NOT NULL,
  actor_id uuid NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamp with time zone NOT NULL,
  tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  CONSTRAINT task_events_pkey PRIMARY KEY (id, created_at)
) PARTITION BY RANGE (created_at);--> statement-breakpoint
ALTER SEQUENCE task_events_id_seq OWNED BY task_events.id;--> statement-breakpoint
ALTER TABLE task_events ADD CONSTRAINT task_events_task_id_tasks_id_fk FOREIGN KEY (task_id) REFERENCES public.tasks(id);--> statement-breakpoint
ALTER TABLE task_events ADD CONSTRAINT task_events_queue_queues_name_fk FOREIGN KEY (queue) REFERENCES public.queues(name);--> statement-breakpoint
ALTER TABLE task_events ADD CONSTRAINT task_events_actor_id_actors_id_fk FOREIGN KEY (actor_id) REFERENCES public.actors(id);--> statement-breakpoint
-- The guard on the parent: row triggers are cloned onto every partition; the TRUNCATE trigger
-- is a statement trigger, which does not fire for `TRUNCATE task_events_2026_01` (see below).
CREATE TRIGGER task_events_no_update_or_delete BEFORE UPDATE OR DELETE ON task_events
  FOR EACH ROW EXECUTE FUNCTION task_events_refuse_change();--> statement-breakpoint
CREATE TRIGGER task_events_no_truncate BEFORE TRUNCATE ON task_events
  FOR EACH STATEMENT EXECUTE FUNCTION task_events_refuse_change();--> statement-breakpoint
-- Each partition's own guard: its TRUNCATE, and UPDATE/DELETE again as triggers of its own,
-- because DETACH removes the cloned ones and a detached month must refuse changes too.
CREATE FUNCTION task_events_guard_partition(partition regclass) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TRIGGER task_events_partition_no_change BEFORE UPDATE OR DELETE ON %s
    FOR EACH ROW EXECUTE FUNCTION task_events_refuse_change()', partition);
  EXECUTE format('CREATE TRIGGER task_events_partition_no_truncate BEFORE TRUNCATE ON %s
    FOR EACH STATEMENT EXECUTE FUNCTION task_events_refuse_change()', partition);
END $$;--> statement-breakpoint
-- Rows of a month without its partition land here, so an insert never fails for want of one.
CREATE TABLE task_events_default PARTITION OF task_events DEFAULT;--> statement-breakpoint
SELECT task_events_guard_partition('task_events_default');--> statement-breakpoint
-- One partition per UTC month, task_events_YYYY_MM, from `since`'s month through next month:
-- called here, at every start (db/migrate.ts) and by the archive. Idempotent and cheap when
-- nothing is missing (no DDL, no lock but an advisory one). A month whose rows already sit in
-- the DEFAULT partition is skipped with a notice (its partition could not be attached).
CREATE FUNCTION task_events_ensure_partitions(since timestamptz DEFAULT now()) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  month timestamptz := date_trunc('month', least(since, now()) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  last_month timestamptz := (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
  next_month timestamptz;
  name text;
  made integer := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('claimboard:task_events_partitions'));
  WHILE month <= last_month LOOP
    next_month := ((month AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
    name := 'task_events_' || to_char(month AT TIME ZONE 'UTC', 'YYYY_MM');
    IF to_regclass('public.' || name) IS NULL THEN
      IF EXISTS (SELECT 1 FROM task_events_default WHERE created_at >= month AND created_at < next_month) THEN
        RAISE NOTICE 'task_events: % has rows in task_events_default; no partition made for it', name;
      ELSE
        EXECUTE format('CREATE TABLE %I PARTITION OF task_events FOR VALUES FROM (%L) TO (%L)', name, month, next_month);
        PERFORM task_events_guard_partition(name::regclass);
        made := made + 1;
      END IF;
    END IF;
    month := next_month;
  END LOOP;
  RETURN made;
END $$;--> statement-breakpoint
SELECT task_events_ensure_partitions(coalesce((SELECT min(created_at) FROM task_events_unpartitioned), now()));--> statement-breakpoint
INSERT INTO task_events (id, task_id, queue, type, actor_id, payload, created_at, tx_id)
  SELECT id, task_id, queue, type, actor_id, payload, created_at, tx_id FROM task_events_unpartitioned;--> statement-breakpoint
DROP TABLE task_events_unpartitioned;--> statement-breakpoint
-- The indexes after the copy (cheaper than maintaining them row by row); each is made on every
-- partition, and on those made later.
CREATE INDEX "task_events_task" ON "task_events" USING btree ("task_id","id");--> statement-breakpoint
CREATE INDEX "task_events_feed" ON "task_events" USING btree ("tx_id","id");--> statement-breakpoint
CREATE INDEX "task_events_queue_time" ON "task_events" USING btree ("queue","created_at");--> statement-breakpoint
CREATE INDEX "task_events_expiries" ON "task_events" USING btree ("queue","created_at") WHERE "task_events"."type" = 'lease_expired';--> statement-breakpoint
CREATE INDEX "task_events_queue_facts" ON "task_events" USING btree ("queue","created_at") WHERE "task_events"."task_id" IS NULL;--> statement-breakpoint
CREATE INDEX "task_events_actor_time" ON "task_events" USING btree ("actor_id","created_at");--> statement-breakpoint
CREATE INDEX "task_events_actor_outcomes" ON "task_events" USING btree ("actor_id","type","created_at") WHERE "task_events"."type" IN ('completed', 'failed');--> statement-breakpoint
CREATE INDEX "task_events_lapsed_owner" ON "task_events" USING btree (("payload"->>'previousOwnerId'),"created_at") WHERE "task_events"."type" = 'lease_expired';--> statement-breakpoint
-- Dropping or detaching a partition, dropping a guard or disabling one: refused unless the
-- archive's transaction said it is archiving (set_config('claimboard.archiving', 'on', true)).
-- This is a safety catch against mistakes, not against a superuser, who can drop it.
CREATE FUNCTION task_events_refuse_drop() RETURNS event_trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('claimboard.archiving', true) = 'on' THEN RETURN; END IF;
  IF EXISTS (SELECT 1 FROM pg_event_trigger_dropped_objects() o
             WHERE o.object_type = 'trigger' AND split_part(o.object_identity, ' on ', 1) IN
               ('task_events_no_update_or_delete', 'task_events_no_truncate',
                'task_events_partition_no_change', 'task_events_partition_no_truncate')) THEN
    RAISE EXCEPTION 'task_events is append-only: its tables and guards are dropped only by `events archive`'
      USING ERRCODE = 'insufficient_privilege';
  END IF;
END $$;--> statement-breakpoint
-- After any ALTER TABLE: every guarded table is still a partition of task_events (no DETACH, no
-- rename of the parent) and every guard is enabled.
CREATE FUNCTION task_events_refuse_detach() RETURNS event_trigger
LANGUAGE plpgsql AS $$
DECLARE
  parent regclass := to_regclass('public.task_events');
BEGIN
  IF current_setting('claimboard.archiving', true) = 'on' THEN RETURN; END IF;
  IF EXISTS (SELECT 1 FROM pg_trigger g
             WHERE g.tgname = 'task_events_partition_no_truncate'
               AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = g.tgrelid AND i.inhparent = parent))
  OR EXISTS (SELECT 1 FROM pg_trigger g
             WHERE g.tgname IN ('task_events_no_update_or_delete', 'task_events_no_truncate',
                                'task_events_partition_no_change', 'task_events_partition_no_truncate')
               AND g.tgenabled NOT IN ('O', 'A')) THEN
    RAISE EXCEPTION 'task_events is append-only: its partitions are detached only by `events archive`, and its guards stay enabled'
      USING ERRCODE = 'insufficient_privilege';
  END IF;
END $$;--> statement-breakpoint
-- Event triggers need a superuser (the embedded PostgreSQL's and CI's role is one). Without one
-- the row and TRUNCATE guards above still hold on every partition, attached or detached; only
-- DROP/DETACH by the tables' owner is then not refused (docs/engine.md).
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    CREATE EVENT TRIGGER task_events_no_drop ON sql_drop EXECUTE FUNCTION task_events_refuse_drop();
    CREATE EVENT TRIGGER task_events_no_detach ON ddl_command_end WHEN TAG IN ('ALTER TABLE')
      EXECUTE FUNCTION task_events_refuse_detach();
  END IF;
END $$;
