import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { actors, tasks } from "@/db/schema";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { makeQueue } from "@/test/queues";
import { createActor } from "@/lib/tasks";
import { loadTask, rawToTaskRow, toTask } from "./task-row";

// loadTask and the engine's RETURNING t.* rows are mapped by hand (rawToTaskRow); drizzle's
// select of the same row is the oracle, column for column, for a row with every column set.

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
  await makeQueue(database.db, "rows");
});
afterAll(async () => {
  await database?.close();
});

async function richTask(ownerId: string): Promise<string> {
  const [dependency] = await database.db.execute<{ id: string }>(sql`INSERT INTO tasks (queue, title) VALUES ('rows', 'first') RETURNING id::text`);
  const [row] = await database.db.execute<{ id: string }>(sql`
    INSERT INTO tasks (queue, title, description, payload, priority, status, owner_id, lease_until, lease_seconds,
                       version, failure_count, needs_check, side_effect_recorded, claimed_at, attempt_limited,
                       progress, progress_at, handoff, handoff_at, depends_on, blocked_by, not_before, idempotency_key,
                       attempt, intended_effects, unknown_effects, reserves, submission, budget_limit, budget_unit, spent)
    VALUES ('rows', 'every column', 'a "quoted" description', '{"n": 1, "list": [1, 2]}', 7, 'started', ${ownerId}::uuid,
            '2026-12-04 10:00:00.123456+00', 120, 5, 2, true, true, '2026-12-04 09:58:00.5+00', true,
            '"half way"', '2026-12-04 09:59:00+00', '{"summary": "s", "next": null, "artifacts": [], "by": null}',
            '2026-12-04 09:59:30+00', ARRAY[${dependency!.id}::bigint], ARRAY[${dependency!.id}::bigint],
            '2026-12-05 00:00:00+00', 'key-1', 3, 1, 0, '[{"resource": "gpu", "units": 2}]',
            '{"result": {"ok": true}, "digest": "d", "by": null, "attempt": 2, "at": "2026-12-04T09:00:00.000Z"}',
            12.5, 'usd_cents', 3.25)
    RETURNING id::text`);
  return row!.id;
}

test("loadTask and rawToTaskRow map every column as drizzle's select does", async () => {
  const owner = await createActor(database.db, "agent", "row-owner");
  const id = await richTask(owner.id);
  const [viaDrizzle] = await database.db.select({ task: tasks, owner: { id: actors.id, name: actors.name, kind: actors.kind } })
    .from(tasks).leftJoin(actors, eq(actors.id, tasks.ownerId)).where(eq(tasks.id, BigInt(id)));
  const [raw] = await database.client.unsafe(`SELECT * FROM tasks WHERE id = $1`, [id]);
  expect(rawToTaskRow(raw!)).toEqual(viaDrizzle!.task);
  expect(await loadTask(database.db, id)).toEqual(toTask(viaDrizzle!.task, viaDrizzle!.owner));
  expect((await loadTask(database.db, id))?.owner).toEqual({ id: owner.id, name: "row-owner", kind: "agent" });
});

test("loadTask: a queued task has no owner, and no task is null", async () => {
  const [row] = await database.db.execute<{ id: string }>(sql`INSERT INTO tasks (queue, title) VALUES ('rows', 'plain') RETURNING id::text`);
  const task = await loadTask(database.db, row!.id);
  expect([task?.title, task?.owner, task?.status]).toEqual(["plain", null, "queued"]);
  expect(await loadTask(database.db, "999999999")).toBeNull();
});
