-- Issue 21: the event log keeps on its write path only what the write path and the live
-- feed read. The btrees (queue, created_at) and (actor_id, created_at) took all three events
-- of every loop task; their readers now find time ranges through a block-range index
-- (task_events_time: next to nothing a write, appended in created_at order) and the queue
-- list's throughput through a partial index that takes one entry a task, its completion.
-- Dropping an index loses no data; every reader's plan is in CHANGELOG.md.
DROP INDEX "task_events_queue_time";--> statement-breakpoint
DROP INDEX "task_events_actor_time";--> statement-breakpoint
CREATE INDEX "task_events_time" ON "task_events" USING brin ("created_at") WITH (pages_per_range=32,autosummarize=true);--> statement-breakpoint
-- What finishes a task, for the index below and the queries that use it. It compares the
-- label as text: a database migrated from an older release runs every pending migration in
-- one transaction, and PostgreSQL refuses to read the literal 'approved' as an event_type in
-- the transaction that added it to the enum (0023) — the predicate written out, or an enum
-- literal in this body, fails the moment the index is built over existing rows. Immutable as
-- long as no label of event_type is renamed (none ever is: the log's payloads name them too).
CREATE FUNCTION task_event_finishes(t event_type) RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN t::text IN ('completed', 'resolved', 'approved');
END;
$$;
--> statement-breakpoint
CREATE INDEX "task_events_queue_finished" ON "task_events" USING btree ("queue","created_at") WHERE task_event_finishes("task_events"."type");