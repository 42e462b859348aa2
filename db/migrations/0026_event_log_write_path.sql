-- Issue 21: the event log keeps on its write path only what the write path and the live
-- feed read. The btrees (queue, created_at) and (actor_id, created_at) took all three events
-- of every loop task; their readers now find time ranges through a block-range index
-- (task_events_time: next to nothing a write, appended in created_at order) and the queue
-- list's throughput through a partial index that takes one entry a task, its completion.
-- Dropping an index loses no data; every reader's plan is in docs/performance.md.
DROP INDEX "task_events_queue_time";--> statement-breakpoint
DROP INDEX "task_events_actor_time";--> statement-breakpoint
CREATE INDEX "task_events_time" ON "task_events" USING brin ("created_at") WITH (pages_per_range=32,autosummarize=true);--> statement-breakpoint
CREATE INDEX "task_events_queue_finished" ON "task_events" USING btree ("queue","created_at") WHERE "task_events"."type" IN ('completed', 'resolved', 'approved');