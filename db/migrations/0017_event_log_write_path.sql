ALTER TABLE "tasks" DROP CONSTRAINT "tasks_owner_id_actors_id_fk";
--> statement-breakpoint
ALTER TABLE "task_events" DROP CONSTRAINT "task_events_task_id_tasks_id_fk";
--> statement-breakpoint
ALTER TABLE "task_events" DROP CONSTRAINT "task_events_queue_queues_name_fk";
--> statement-breakpoint
ALTER TABLE "task_events" DROP CONSTRAINT "task_events_actor_id_actors_id_fk";
--> statement-breakpoint
ALTER TABLE "task_events" DROP CONSTRAINT "task_events_pkey";--> statement-breakpoint
-- Without the foreign keys, TRUNCATE of a table the log names no longer cascades into the
-- log's guard: refuse it on those tables themselves, so the log never points nowhere.
CREATE FUNCTION task_events_referents_no_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'task_events is append-only: TRUNCATE of % would leave its events pointing nowhere', TG_TABLE_NAME
    USING ERRCODE = 'insufficient_privilege';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER tasks_no_truncate BEFORE TRUNCATE ON tasks
  FOR EACH STATEMENT EXECUTE FUNCTION task_events_referents_no_truncate();
--> statement-breakpoint
CREATE TRIGGER queues_no_truncate BEFORE TRUNCATE ON queues
  FOR EACH STATEMENT EXECUTE FUNCTION task_events_referents_no_truncate();
--> statement-breakpoint
CREATE TRIGGER actors_no_truncate BEFORE TRUNCATE ON actors
  FOR EACH STATEMENT EXECUTE FUNCTION task_events_referents_no_truncate();
