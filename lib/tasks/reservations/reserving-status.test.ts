import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claimNext, listReservations, perform, taskReadiness } from "@/lib/tasks";
import { createActor } from "@/lib/tasks/core/actors";
import { ManualClock } from "@/lib/tasks/core/clock";
import { reservingTaskIn } from "@/lib/tasks/claiming/breaker";
import { heldReserving } from "./held";
import { migrateDatabase } from "@/db/migrate";
import { freshDatabase, type TestDatabase } from "@/test/db";

// tasks_reserving keys on reserving_status since migration 0032 (the status of a task that
// reserves, null for one that does not), so no index names the status of a task that reserves
// nothing. Here a database with reserving tasks in every state is migrated from 0031.

const HOLDER = "11111111-1111-4111-8111-111111111111";

describe("migration 0032 on a database with tasks that reserve, held, parked, queued and done", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase({ migratedUpTo: 31 });
    await database.client`INSERT INTO actors (id, kind, name) VALUES (${HOLDER}, 'agent', 'old-bot')`;
    await database.client`INSERT INTO queues (name) VALUES ('old')`;
    await database.client`
      WITH made AS (
        INSERT INTO task_state (queue, priority, status, owner_id, lease_until, lease_seconds, version, attempt, reserves)
        VALUES
          ('old', 9, 'started', ${HOLDER}, now() + interval '1 hour', 3600, 3, 1, '[{"resource": "db/**", "mode": "exclusive"}]'),
          ('old', 8, 'awaiting_input', ${HOLDER}, NULL, NULL, 4, 1, '[{"resource": "docs/a.md", "mode": "exclusive"}]'),
          ('old', 7, 'queued', NULL, NULL, NULL, 1, 0, '[{"resource": "db/migrations/0001.sql", "mode": "exclusive"}]'),
          ('old', 6, 'done', ${HOLDER}, NULL, NULL, 4, 1, '[{"resource": "src/**", "mode": "exclusive"}]'),
          ('old', 5, 'queued', NULL, NULL, NULL, 1, 0, NULL)
        RETURNING id, priority)
      INSERT INTO task_content (id, title) SELECT id, 'Old task ' || priority FROM made`;
    await migrateDatabase(database.url);
  });
  afterAll(async () => {
    await database?.close();
  });

  test("reserving_status is the status of each task that reserves, and null for the one that does not", async () => {
    const rows = await database.client`SELECT priority, status::text, reserving_status::text FROM task_state ORDER BY priority DESC`;
    expect(rows).toEqual([
      { priority: 9, status: "started", reserving_status: "started" },
      { priority: 8, status: "awaiting_input", reserving_status: "awaiting_input" },
      { priority: 7, status: "queued", reserving_status: "queued" },
      { priority: 6, status: "done", reserving_status: "done" },
      { priority: 5, status: "queued", reserving_status: null },
    ]);
    const [index] = (await database.client`SELECT indexdef FROM pg_indexes WHERE indexname = 'tasks_reserving'`) as unknown as { indexdef: string }[];
    expect(index!.indexdef).toMatch(/\(reserving_status, queue\) WHERE \(reserving_status IS NOT NULL\)$/);
  });

  test("the claim's gate and the holdings' read can use the index (its predicate follows from theirs)", async () => {
    // On five rows the planner may prefer any index of the queue; with the others dropped (and
    // the drop rolled back) it uses tasks_reserving only if the query implies its predicate,
    // else it reads the primary key whole.
    const plans: string[] = [];
    const rolledBack = new Error("rolled back");
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL enable_seqscan = off`);
      await tx.execute(sql`DROP INDEX tasks_queue_status, tasks_status_order, tasks_settled_owner, tasks_spent_done, tasks_idempotency_key`);
      const plan = async (query: ReturnType<typeof sql>) =>
        (await tx.execute<{ "QUERY PLAN": string }>(sql`EXPLAIN ${query}`)).map((r) => r["QUERY PLAN"]).join("\n");
      plans.push(await plan(sql`SELECT ${reservingTaskIn} FROM queues q WHERE q.name = 'old'`));
      plans.push(await plan(sql`SELECT h.id FROM task_state h WHERE ${heldReserving("h", new ManualClock())}`));
      throw rolledBack;
    }).catch((error: unknown) => {
      if (error !== rolledBack) throw error;
    });
    expect(plans).toHaveLength(2);
    for (const plan of plans) expect(plan).toMatch(/tasks_reserving on task_state/);
    const [kept] = (await database.client`SELECT count(*)::int AS n FROM pg_indexes WHERE indexname = 'tasks_queue_status'`) as unknown as { n: number }[];
    expect(kept!.n).toBe(1);
  });

  test("the old holdings still hold: listed by resource, the conflicting task not claimable and told why, the free one claimed", async () => {
    const worker = await createActor(database.db, "agent", "new-bot");
    const held = await perform(listReservations, {}, { db: database.db, actor: worker });
    if (!held.ok) throw new Error(held.error.message);
    expect(held.value.map((r) => [r.resource, r.title, r.owner.name, r.leaseUntil === null])).toEqual([
      ["db/**", "Old task 9", "old-bot", false],
      ["docs/a.md", "Old task 8", "old-bot", true],
    ]);
    const [blocked] = await database.client`SELECT id::text FROM task_state WHERE priority = 7`;
    const readiness = await perform(taskReadiness, { taskId: blocked!.id }, { db: database.db, actor: worker });
    if (!readiness.ok) throw new Error(readiness.error.message);
    expect(readiness.value.reasons.map((r) => r.code)).toEqual(["reserved"]);
    const claimed = await perform(claimNext, { queue: "old" }, { db: database.db, actor: worker });
    if (!claimed.ok) throw new Error(claimed.error.message);
    expect(claimed.value?.title).toBe("Old task 5");
    const next = await perform(claimNext, { queue: "old" }, { db: database.db, actor: worker });
    expect(next.ok && next.value).toBe(null);
  });
});
