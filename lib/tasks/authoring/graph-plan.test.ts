import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as schema from "@/db/schema";
import { cancel, claim, complete, start, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { taskRow } from "@/test/inspect";
import { planReporter } from "@/test/plans";

// The graph's probes (who waits for this task?) run on every completion and cancel. Only a
// few tasks have dependencies, so they must go through the partial index tasks_blocked_by
// (WHERE blocked_by <> '{}'); a statement that does not repeat that predicate cannot use it
// and reads the whole table. The plans are the code's own statements' (auto_explain on the
// connection that runs them), custom and generic.
const TASKS = 20_000;
const QUEUE = "plan";

let f: EngineFixture;
let client: postgres.Sql;
let plans: string[];
let amal: ActorRef;
let sara: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  sara = await f.actor("Sara");
  await f.queue(QUEUE);
  await f.db.execute(sql`INSERT INTO tasks (queue, title) SELECT ${QUEUE}, 'bulk ' || i FROM generate_series(1, ${TASKS}::int) i`);
  await f.db.execute(sql`ANALYZE task_state, task_content, task_queued`);
  ({ client, plans } = await planReporter(f.database.url, { nested: true }));
}, 60_000);
afterAll(async () => {
  await client?.end();
  await f?.close();
});

/** The plans auto_explain reported for the statements containing `marker`, from what `fn` ran: `count` of them. */
async function plansOf(marker: string, count: number, fn: () => Promise<unknown>): Promise<string[]> {
  plans.length = 0;
  await fn();
  const found = plans.filter((p) => p.includes(marker));
  expect(found, `plans for "${marker}" among ${plans.length}`).toHaveLength(count);
  return found;
}

const throughTheIndex = (plan: string) => {
  expect(plan).toContain("tasks_blocked_by");
  expect(plan).not.toMatch(/Seq Scan on task_state/);
};

describe.each(["auto", "force_generic_plan"])("the graph's probes use tasks_blocked_by (plan_cache_mode %s)", (mode) => {
  beforeAll(async () => {
    await client.unsafe(`SET plan_cache_mode = ${mode}`);
  });

  test(`completing a task: the probe for dependents, then the unblocking statement, ${TASKS} tasks`, async () => {
    const db = drizzle(client, { schema });
    const parent = await f.task("parent", { queue: QUEUE });
    const child = await f.task("child", { queue: QUEUE, dependsOn: [parent.id] });
    const claimed = await f.must(claim, { taskId: parent.id, version: parent.version }, amal);
    const started = await f.must(start, { taskId: parent.id, version: claimed.version }, amal);
    const found = await plansOf("blocked_by &&", 2, () => f.must(complete, { taskId: parent.id, version: started.version }, amal, db));
    found.forEach(throughTheIndex);
    expect((await taskRow(f.db, child.id)).blockedBy).toEqual([]);

    // Nothing waits for this one: the probe alone runs.
    const lone = await f.task("lone", { queue: QUEUE });
    const held = await f.must(claim, { taskId: lone.id, version: lone.version }, amal);
    const going = await f.must(start, { taskId: lone.id, version: held.version }, amal);
    const [probe] = await plansOf("blocked_by &&", 1, () => f.must(complete, { taskId: lone.id, version: going.version }, amal, db));
    throughTheIndex(probe!);
    expect(probe).not.toMatch(/Update on task_state/);
  });

  test(`cancelling a task: the escalation probe, ${TASKS} tasks`, async () => {
    const db = drizzle(client, { schema });
    const parent = await f.task("parent", { queue: QUEUE });
    const child = await f.task("child", { queue: QUEUE, dependsOn: [parent.id] });
    const [plan] = await plansOf("blocked_by &&", 1, () => f.must(cancel, { taskId: parent.id, version: parent.version }, sara, db));
    throughTheIndex(plan!);
    expect((await taskRow(f.db, child.id)).status).toBe("escalated");
  });
});
