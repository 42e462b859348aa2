import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, complete, renew, start, type ActorRef, type Task } from "@/lib/tasks";
import type { Db } from "@/db/client";
import { migrateDatabase } from "@/db/migrate";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { readQueueSpend } from "./spend";
import { spanOf } from "./window";

// Insights' spend per done task (lib/insights/spend.ts) reads tasks_spent_done, keyed on done_at
// since migration 0031, so that a heartbeat, which changes updated_at, changes no indexed value.

let f: EngineFixture;
let agent: ActorRef;
const queue = "spend-insights";
const at = (task: Task) => ({ taskId: task.id, version: task.version });

beforeAll(async () => {
  f = await engineFixture();
  agent = await f.actor("Meter", "agent");
  await f.queue(queue);
});
afterAll(async () => {
  await f?.close();
});

async function started(input: Parameters<EngineFixture["task"]>[1] = {}) {
  const task = await f.task("Metered", { queue, ...input });
  return f.must(start, at(await f.must(claim, at(task), agent)), agent);
}

describe("spend per done task", () => {
  test("counts the done tasks of the window that reported spend, by unit; not held, unmetered or earlier ones", async () => {
    // Done two days before the window: not counted.
    const early = await started();
    await f.must(complete, { ...at(early), spend: 100 }, agent);
    f.clock.advance(2 * 86_400);

    const budgeted = await started({ budget: { limit: 1000, unit: "usd_cents" } });
    await f.must(complete, { ...at(await f.must(renew, { ...at(budgeted), spend: 10 }, agent)), spend: 20 }, agent);
    const unbudgeted = await started();
    await f.must(complete, { ...at(unbudgeted), spend: 7 }, agent);
    await f.must(complete, at(await started()), agent); // no spend
    await f.must(renew, { ...at(await started()), spend: 5 }, agent); // still held

    f.clock.advance(60);
    expect(await readQueueSpend(f.db, queue, spanOf("24h", f.clock.time))).toEqual([
      { unit: "", doneTasks: 1, spent: 7, perDone: 7 },
      { unit: "usd_cents", doneTasks: 1, spent: 30, perDone: 30 },
    ]);
  });

  test("a plain heartbeat changes no indexed value of task_state: its update is HOT; a start, which changes the status, is not", async () => {
    const task = await started();
    // This backend's counters around the operation, in one transaction (no flush between):
    // the pending counts carry earlier transactions' too, so the difference is what it did.
    const updates = async (run: (db: Db) => Promise<unknown>) =>
      f.db.transaction(async (tx) => {
        const counts = async () => (await tx.execute<{ updated: number; hot: number }>(sql`
          SELECT pg_stat_get_xact_tuples_updated('task_state'::regclass)::int AS updated,
                 pg_stat_get_xact_tuples_hot_updated('task_state'::regclass)::int AS hot`))[0]!;
        const before = await counts();
        await run(tx as unknown as Db);
        const after = await counts();
        return { updated: after.updated - before.updated, hot: after.hot - before.hot };
      });
    let held = task;
    for (let i = 0; i < 3; i++) {
      f.clock.advance(5);
      expect(await updates(async (db) => void (held = await f.must(renew, at(held), agent, db)))).toEqual({ updated: 1, hot: 1 });
    }
    const claimed = await f.must(claim, at(await f.task("Not HOT", { queue })), agent);
    expect(await updates((db) => f.must(start, at(claimed), agent, db))).toEqual({ updated: 1, hot: 0 });
  });
});

describe("migration 0031 on a database with done, metered tasks", () => {
  let database: TestDatabase;
  const doneAt = new Date("2026-11-30T10:00:00.000Z");
  beforeAll(async () => {
    database = await freshDatabase({ migratedUpTo: 30 });
    await database.client`INSERT INTO queues (name) VALUES ('old')`;
    // Done with spend (units usd_cents and none), done without, cancelled with spend, queued: twelve of each.
    await database.client`
      WITH made AS (
        INSERT INTO task_state (queue, status, spent, budget_limit, budget_unit, version, created_at, updated_at)
        SELECT 'old', s, sp, CASE WHEN n % 8 = 0 THEN 1000 END, CASE WHEN n % 8 = 0 THEN 'usd_cents' END,
               CASE WHEN s = 'queued' THEN 1 ELSE 4 END, ${doneAt.toISOString()}::timestamptz - interval '1 hour', ${doneAt.toISOString()}::timestamptz
        FROM generate_series(1, 48) n,
             LATERAL (SELECT (ARRAY['done', 'done', 'cancelled', 'queued'])[1 + n % 4]::task_status AS s,
                             CASE WHEN n % 4 IN (0, 2) THEN 3 ELSE 0 END AS sp) x
        RETURNING id)
      INSERT INTO task_content (id, title) SELECT id, 'Old task ' || id FROM made`;
    await migrateDatabase(database.url);
  });
  afterAll(async () => {
    await database?.close();
  });

  test("done_at is the done tasks' updated_at and null for the rest; the old tasks' spend reads as before, through the index on done_at", async () => {
    const rows = (await database.client`
      SELECT status::text, count(*)::int AS n, count(*) FILTER (WHERE done_at = updated_at)::int AS dated, count(done_at)::int AS with_done_at
      FROM task_state GROUP BY 1 ORDER BY 1`) as unknown as { status: string; n: number; dated: number; with_done_at: number }[];
    expect(rows).toEqual([
      { status: "cancelled", n: 12, dated: 0, with_done_at: 0 },
      { status: "done", n: 24, dated: 24, with_done_at: 24 },
      { status: "queued", n: 12, dated: 0, with_done_at: 0 },
    ]);
    expect(await readQueueSpend(database.db, "old", spanOf("24h", new Date(doneAt.getTime() + 3_600_000)))).toEqual([
      { unit: "", doneTasks: 6, spent: 18, perDone: 3 },
      { unit: "usd_cents", doneTasks: 6, spent: 18, perDone: 3 },
    ]);
    const [index] = (await database.client`SELECT indexdef FROM pg_indexes WHERE indexname = 'tasks_spent_done'`) as unknown as { indexdef: string }[];
    expect(index!.indexdef).toMatch(/\(queue, done_at\) WHERE \(\(done_at IS NOT NULL\) AND \(spent > \(0\)::numeric\)\)/);
  });
});
