-- task_events is the audit log: the database itself refuses to change or remove a row.
CREATE FUNCTION task_events_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'task_events is append-only: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER task_events_no_update_or_delete
  BEFORE UPDATE OR DELETE ON task_events
  FOR EACH ROW EXECUTE FUNCTION task_events_refuse_change();
--> statement-breakpoint
CREATE TRIGGER task_events_no_truncate
  BEFORE TRUNCATE ON task_events
  FOR EACH STATEMENT EXECUTE FUNCTION task_events_refuse_change();
--> statement-breakpoint
-- The actor of lease expiries, breaker trips and other facts no person or agent caused.
INSERT INTO actors (id, kind, name) VALUES ('00000000-0000-0000-0000-000000000000', 'system', 'system');
--> statement-breakpoint
INSERT INTO queues (name) VALUES ('default');
