-- The board's search leaves the task row (CHANGELOG.md "Issue 21, third step"): a
-- task's words in task_search, written when its title, description or payload are, never
-- by a claim, start, heartbeat or completion.
CREATE TABLE "task_search" (
	"task_id" bigint PRIMARY KEY NOT NULL,
	"words" text NOT NULL
);
--> statement-breakpoint
-- What a task is found by, in one place: the text the dropped index was built on.
CREATE FUNCTION task_search_words(title text, description text, payload jsonb) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN title || ' ' || description || ' ' || payload::text;
--> statement-breakpoint
-- Every existing task's words.
INSERT INTO task_search (task_id, words) SELECT id, task_search_words(title, description, payload) FROM tasks;
--> statement-breakpoint
CREATE INDEX "task_search_words" ON "task_search" USING gin (to_tsvector('simple'::regconfig, "words"));--> statement-breakpoint
DROP INDEX "tasks_search";--> statement-breakpoint
-- Created tasks, once a statement (a batch of creates is one INSERT of their words).
CREATE FUNCTION tasks_search_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO task_search (task_id, words)
  SELECT id, task_search_words(title, description, payload) FROM added;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER tasks_search_added AFTER INSERT ON tasks
  REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION tasks_search_added();
--> statement-breakpoint
-- Edited words. UPDATE OF: the loop's statements never name these columns, so they never fire it.
CREATE FUNCTION tasks_search_edited() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE task_search SET words = task_search_words(NEW.title, NEW.description, NEW.payload) WHERE task_id = NEW.id;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER tasks_search_edited AFTER UPDATE OF title, description, payload ON tasks
  FOR EACH ROW
  WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.description IS DISTINCT FROM NEW.description OR OLD.payload IS DISTINCT FROM NEW.payload)
  EXECUTE FUNCTION tasks_search_edited();
