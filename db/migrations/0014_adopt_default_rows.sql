-- Rows in task_events_default (written in a month that had no partition yet: a server up
-- past the end of next month, or back-dated rows) used to stay there for good: their month
-- could never get a partition, and `events archive` refused every range that reached them.
-- Now task_events_ensure_partitions (every start, every CLI command, the archive) gives each
-- such month its partition and moves the rows into it. The rows are copied, never changed
-- or deleted: the old DEFAULT is detached, a new one attached, the rows inserted again
-- through the parent (ids, tx ids and all), and the old table dropped — the detach and the
-- drop under the same flag as the archive's (the event trigger lets them through).
CREATE FUNCTION task_events_adopt_default() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  months timestamptz[];
  month timestamptz;
  name text;
  flag text := coalesce(current_setting('claimboard.archiving', true), '');
BEGIN
  SELECT array_agg(DISTINCT date_trunc('month', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') INTO months
    FROM task_events_default;
  IF months IS NULL THEN RETURN 0; END IF;
  PERFORM set_config('claimboard.archiving', 'on', true);
  ALTER TABLE task_events DETACH PARTITION task_events_default;
  ALTER TABLE task_events_default RENAME TO task_events_default_adopted;
  CREATE TABLE task_events_default PARTITION OF task_events DEFAULT;
  PERFORM task_events_guard_partition('task_events_default');
  FOREACH month IN ARRAY months LOOP
    name := 'task_events_' || to_char(month AT TIME ZONE 'UTC', 'YYYY_MM');
    EXECUTE format('CREATE TABLE %I PARTITION OF task_events FOR VALUES FROM (%L) TO (%L)',
                   name, month, ((month AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC');
    PERFORM task_events_guard_partition(name::regclass);
  END LOOP;
  INSERT INTO task_events (id, task_id, queue, type, actor_id, payload, created_at, tx_id)
    SELECT id, task_id, queue, type, actor_id, payload, created_at, tx_id FROM task_events_default_adopted;
  DROP TABLE task_events_default_adopted;
  PERFORM set_config('claimboard.archiving', flag, true);
  RETURN cardinality(months);
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION task_events_ensure_partitions(since timestamptz DEFAULT now()) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  month timestamptz := date_trunc('month', least(since, now()) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  last_month timestamptz := (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
  next_month timestamptz;
  name text;
  made integer;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('claimboard:task_events_partitions'));
  made := task_events_adopt_default();
  WHILE month <= last_month LOOP
    next_month := ((month AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
    name := 'task_events_' || to_char(month AT TIME ZONE 'UTC', 'YYYY_MM');
    IF to_regclass('public.' || name) IS NULL THEN
      EXECUTE format('CREATE TABLE %I PARTITION OF task_events FOR VALUES FROM (%L) TO (%L)', name, month, next_month);
      PERFORM task_events_guard_partition(name::regclass);
      made := made + 1;
    END IF;
    month := next_month;
  END LOOP;
  RETURN made;
END $$;
--> statement-breakpoint
SELECT task_events_ensure_partitions();
