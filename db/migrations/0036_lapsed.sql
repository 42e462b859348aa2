-- A lapse is announced when it happens (contract v1.3, docs/claiming.md "Lazy expiry, announced").
-- Expiry stays lazy: a lapsed lease changes nothing until a claim or the sweep takes it over.
-- The servers that already run time the earliest lease end (lib/realtime/lapse-clock.ts) and
-- write one `lapsed` fact per attempt: a fact of no version, written beside no state change.
ALTER TYPE "public"."event_type" ADD VALUE 'lapsed';--> statement-breakpoint
-- "Once per attempt, however many instances" is decided here: the announcement is a guarded
-- UPDATE of this column (the attempt whose lapse was announced), so a second instance finds
-- it set and writes nothing. It lives on the lease's row, which a task has only while held:
-- it goes with the row when the attempt ends, and a reclaim keeps the row under a new attempt
-- number, which the column no longer names. Null (the common case) costs a heartbeat's new
-- tuple nothing: the null bitmap fits the header's padding. No claim, renewal or completion
-- writes it; no index names it, so the announcement's update can be HOT.
ALTER TABLE "task_lease" ADD COLUMN "announced_attempt" integer;
