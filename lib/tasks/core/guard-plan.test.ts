import postgres from "postgres";
import { drizzle } from "drizzle-orm/postgres-js";
import { afterAll, beforeAll, expect, test } from "vitest";
import * as schema from "@/db/schema";
import { claimNext, complete, perform, renew, type ActorRef, type Task } from "@/lib/tasks";
import { engineFixture, seedQueued, type EngineFixture } from "@/test/engine";
import { planReporter } from "@/test/plans";

// A guard is checked on a task found by its key (recheck, core/transition.ts). Here the
// statistics say what a freshly seeded queue says, that no task is started, while twenty are:
// a guard read as a search condition would walk every started task of tasks_status_order.

let f: EngineFixture;
let agent: ActorRef;
let client: postgres.Sql;
let plans: string[];
const queue = "guard-plan";
const held: Task[] = [];

beforeAll(async () => {
  f = await engineFixture();
  agent = await f.actor("guarded", "agent");
  await seedQueued(f, queue, 2000);
  for (let i = 0; i < 20; i++) {
    const claimed = await perform(claimNext, { queue, start: true }, { db: f.db, actor: agent, clock: f.clock });
    if (!claimed.ok || !claimed.value) throw new Error("claim failed");
    held.push(claimed.value);
  }
  ({ client, plans } = await planReporter(f.database.url));
}, 60_000);
afterAll(async () => {
  await client?.end();
  await f?.close();
});

test.each(["auto", "force_generic_plan"])("the completion and a heartbeat reach their task by key, not through the started tasks (plan_cache_mode %s)", async (mode) => {
  await client.unsafe(`SET plan_cache_mode = ${mode}`);
  const db = drizzle(client, { schema });
  const context = { db, actor: agent, clock: f.clock };
  // Each statement runs more than five times, so that `auto` has made its generic plan too.
  for (let i = 0; i < 7; i++) {
    const [beat, done] = [held.shift()!, held.shift()!];
    plans.length = 0;
    const renewed = await perform(renew, { taskId: beat.id, version: beat.version }, context);
    const completed = await perform(complete, { taskId: done.id, version: done.version }, context);
    expect(renewed.ok && completed.ok).toBe(true);
    if (renewed.ok) held.push(renewed.value);
    const writes = plans.filter((p) => /Update on task_state/.test(p));
    expect(writes).toHaveLength(2);
    for (const plan of writes) {
      expect(plan).toMatch(/Index Scan using tasks_pkey on task_state t/);
      expect(plan).not.toContain("tasks_status_order");
    }
  }
});
