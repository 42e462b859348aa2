import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as schema from "@/db/schema";
import type { ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { COUNT_CAP, countTasks, countTasksQuery } from "./counts";
import { listQueues } from "./queue-list";
import { planReporter } from "@/test/plans";

// The board's per-queue counts and the queue list probe each queue in each status, capped,
// from a statement over `queues q`. The queue is the outer row's, so the planner guesses the
// tasks of any queue as an average; with one queue holding most of the tasks, it guessed that
// a scan of the table finds a small queue's done tasks at once, and read the whole table for
// each probe. Here one queue holds 29,995 tasks, most of them done, and another five: 30,000
// rows, as many as ANALYZE samples, so the statistics cover every row and the plans are the
// same on every run. The plans are the code's own statements' (auto_explain on the connection
// that runs them).
const BIG = 29_995;

let f: EngineFixture;
let client: postgres.Sql;
let plans: string[];
let viewer: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  viewer = await f.actor("Viewer");
  await f.queue("big");
  await f.queue("small");
  await f.database.client`
    INSERT INTO task_state (queue, status, created_at)
    SELECT 'big', CASE WHEN i % 20 = 0 THEN 'queued' ELSE 'done' END::task_status, now() - make_interval(secs => i)
    FROM generate_series(1, ${BIG}::int) i`;
  await f.database.client`INSERT INTO task_state (queue) SELECT 'small' FROM generate_series(1, 5)`;
  await f.database.client`INSERT INTO task_content (id, title) SELECT id, 'seeded ' || id FROM task_state`;
  await f.database.client`ANALYZE task_state, task_content, task_queued, task_held`;
  ({ client, plans } = await planReporter(f.database.url));
}, 60_000);
afterAll(async () => {
  await client?.end();
  await f?.close();
});

/** The plan of the one statement `fn` ran whose probes take their queue from the outer row. */
async function perQueuePlan(fn: () => Promise<unknown>): Promise<string> {
  plans.length = 0;
  await fn();
  const found = plans.filter((p) => p.includes("q.name"));
  expect(found, `plans with a per-queue probe among ${plans.length}`).toHaveLength(1);
  return found[0]!;
}

// Each of the eight probes (a status each) reads tasks_queue_status: an index-only walk that
// stops at the cap, or, where the planner's guess is under the cap, a bitmap of the same
// queue and status, sorted; either way the queue's tasks in that status, never the table.
const everyProbeThroughTheIndex = (plan: string) => {
  expect(plan).not.toMatch(/Seq Scan on task_state/);
  expect(plan).not.toMatch(/Index Scan using tasks_pkey/);
  expect(plan.match(/SubPlan \d+\n(?:(?!SubPlan).*\n)*?.*(?:Index Only Scan using|Bitmap Index Scan on) tasks_queue_status/g)).toHaveLength(8);
};

describe.each(["auto", "force_generic_plan"])("per-queue counts walk tasks_queue_status (plan_cache_mode %s)", (mode) => {
  beforeAll(async () => {
    await client.unsafe(`SET plan_cache_mode = ${mode}`);
  });

  test(`the board's counts, one queue of ${BIG} tasks beside one of five`, async () => {
    const db = drizzle(client, { schema });
    let counts: Awaited<ReturnType<typeof countTasks>> | undefined;
    const plan = await perQueuePlan(async () => (counts = await countTasks(db, countTasksQuery.parse({}), viewer)));
    everyProbeThroughTheIndex(plan);
    const byQueue = Object.fromEntries(counts!.queues.map((q) => [q.queue, q.statuses]));
    expect(byQueue.big).toMatchObject({ queued: COUNT_CAP + 1, done: COUNT_CAP + 1, started: 0 });
    expect(byQueue.small).toMatchObject({ queued: 5, done: 0, started: 0 });
  });

  test(`the queue list, the same queues`, async () => {
    const db = drizzle(client, { schema });
    let queues: Awaited<ReturnType<typeof listQueues>> | undefined;
    const plan = await perQueuePlan(async () => (queues = await listQueues(db)));
    everyProbeThroughTheIndex(plan);
    const byName = Object.fromEntries(queues!.map((q) => [q.name, q.counts]));
    expect(byName.big).toMatchObject({ queued: COUNT_CAP + 1, done: COUNT_CAP + 1 });
    expect(byName.small).toMatchObject({ queued: 5, done: 0 });
  });
});
