ALTER TABLE "tasks" ADD COLUMN "reserves" jsonb;--> statement-breakpoint
CREATE INDEX "tasks_reserving" ON "tasks" USING btree ("status","queue") WHERE "tasks"."reserves" IS NOT NULL;--> statement-breakpoint
-- API.md "Reservations": `a` covers `b` when they are the same resource, or `a` ends in
-- `/**` and `b` is that path or under it. lib/tasks/reservations/schemas.ts `covers` is
-- the same test in TypeScript.
CREATE FUNCTION reservation_covers(a text, b text) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN a = b OR (right(a, 3) = '/**' AND (b = left(a, -3) OR starts_with(b, left(a, -3) || '/')));
