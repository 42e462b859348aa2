import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAgentToken } from "@/lib/auth/tokens";
import { createActor, createTask, perform, setQueueSettings, type ActorRef } from "@/lib/tasks";
import { startAgent } from "@/test/cli";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { makeQueue } from "@/test/queues";
import { percentile } from "@/test/realtime/helpers";
import { startServer, type TestServer } from "@/test/server";
import { Api, expectError } from "./helpers";

// Waiting claims (docs/contract.md "Waiting for work, not polling") on two real `next start`
// processes sharing one PostgreSQL: a wait is woken by the hub of whichever instance holds it,
// claims exactly as a claim does, ends 204, and is capped (small caps here, set by env).

let database: TestDatabase;
let one: TestServer;
let two: TestServer;
let creator: ActorRef;
const CAPS = { CLAIM_WAITS_PER_TOKEN: "3", QUESTION_WAITS_PER_TOKEN: "3" };
beforeAll(async () => {
  database = await freshDatabase();
  [one, two] = await Promise.all([startServer(database.url, CAPS), startServer(database.url, CAPS)]);
  creator = await createActor(database.db, "user", "Creator");
});
afterAll(async () => {
  await Promise.all([one?.stop(), two?.stop()]);
  await database?.close();
});

const api = (server: TestServer) => new Api(`${server.url}/api/v1`);
const token = async (name: string) => (await createAgentToken(database.db, { name })).token;
const create = async (queue: string, title: string) => {
  const made = await perform(createTask, { title, queue }, { db: database.db, actor: creator });
  if (!made.ok) throw new Error(made.error.message);
  return made.value;
};
/** Claim waits open now (claim_waits rows not yet ended), across instances. */
const openWaits = async (queue: string) =>
  (await database.client<{ n: number }[]>`SELECT count(*)::int AS n FROM claim_waits WHERE queue = ${queue} AND until > now()`)[0]!.n;
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("wait: the field", () => {
  test("above 60 or not whole is a 400 naming wait (next.wait in a completion); 0 answers at once", async () => {
    const agent = await token("validator");
    await makeQueue(database.db, "v");
    for (const wait of [61, 1.5, -1, "5"]) {
      expect((await expectError(await api(one).post("/claims", agent, { queue: "v", wait }), 400, "invalid_request")).field).toBe("wait");
      expect((await expectError(await api(one).post("/claims/batch", agent, { queue: "v", limit: 2, wait }), 400, "invalid_request")).field).toBe("wait");
    }
    const task = await create("v", "to complete");
    const claimed = await api(one).post(`/tasks/${task.id}/claim`, agent, { version: task.version });
    const refused = await api(one).post(`/tasks/${task.id}/complete`, agent, { version: (claimed.body as { task: { version: number } }).task.version, next: { queue: "v", wait: 61 } });
    expect((await expectError(refused, 400, "invalid_request")).field).toBe("next.wait");
    const began = Date.now();
    expect((await api(one).post("/claims", agent, { queue: "v", wait: 0 })).status).toBe(204);
    expect(Date.now() - began).toBeLessThan(5_000);
  });
});

describe("waiting for work", () => {
  test("a task created while 5 agents wait is claimed once, by one of them, p50 within 200 ms over 50 tries", async () => {
    const queue = await makeQueue(database.db, "five");
    const tokens = await Promise.all(Array.from({ length: 5 }, (_, i) => token(`waiter-${i}`)));
    const claims: { taskId: string; at: number }[] = [];
    let stop = false;
    // Each agent: one wait at a time, again at once after a 204 or a claim.
    const loops = tokens.map(async (t, i) => {
      const server = i % 2 === 0 ? one : two;
      while (!stop) {
        const answer = await api(server).post("/claims", t, { queue, wait: 10 });
        if (answer.status === 200) claims.push({ taskId: (answer.body as { task: { id: string } }).task.id, at: performance.now() });
        else expect(answer.status).toBe(204);
      }
    });
    const latencies: number[] = [];
    for (let i = 0; i < 50; i++) {
      await until(async () => (await openWaits(queue)) === 5, "all 5 waiting");
      const before = claims.length;
      const task = await create(queue, `try ${i}`);
      const committed = performance.now();
      await until(async () => claims.length > before, `task ${task.id} to be claimed`);
      latencies.push(claims.at(-1)!.at - committed);
      expect(claims.slice(before).map((c) => c.taskId)).toEqual([task.id]);
    }
    stop = true;
    await Promise.all(loops.map((l) => l.catch(() => {})));
    expect(new Set(claims.map((c) => c.taskId)).size).toBe(50);
    expect(claims).toHaveLength(50);
    const [claimedEvents] = await database.client<{ n: number }[]>`SELECT count(*)::int AS n FROM task_events WHERE queue = ${queue} AND type = 'claimed'`;
    expect(claimedEvents!.n).toBe(50);
    expect(percentile(latencies, 50), `latencies ${latencies.map(Math.round).join(", ")}`).toBeLessThan(200);
  }, 180_000);

  test("2 instances × 20 waiters × 500 tasks: every task claimed exactly once, none while another holds it", async () => {
    const queue = await makeQueue(database.db, "crowd");
    const tokens = await Promise.all(Array.from({ length: 40 }, (_, i) => token(`crowd-${i}`)));
    const claimed: string[] = [];
    let stop = false;
    const loops = tokens.map(async (t, i) => {
      while (!stop) {
        const answer = await api(i < 20 ? one : two).post("/claims/batch", t, { queue, limit: 5, wait: 5 });
        if (answer.status === 200) claimed.push(...(answer.body as { tasks: { id: string }[] }).tasks.map((task) => task.id));
        else expect(answer.status).toBe(204);
      }
    });
    await until(async () => (await openWaits(queue)) === 40, "all 40 waiting");
    for (let i = 0; i < 500; i++) await create(queue, `crowd ${i}`);
    await until(async () => claimed.length >= 500, "500 claims", 120_000);
    stop = true;
    await Promise.all(loops);
    expect(claimed).toHaveLength(500);
    expect(new Set(claimed).size).toBe(500);
    // Each task has exactly one claim in its history: nobody claimed a task another held.
    const rows = await database.client<{ n: number }[]>`
      SELECT count(*)::int AS n FROM task_events WHERE queue = ${queue} AND type = 'claimed' GROUP BY task_id HAVING count(*) <> 1`;
    expect(rows).toEqual([]);
  }, 240_000);

  test("a holder killed with SIGKILL is taken over within 1.5 s of its lease end by a waiter on the other instance", async () => {
    const queue = await makeQueue(database.db, "crash-wait");
    await perform(setQueueSettings, { queue, leaseSeconds: 5 }, { db: database.db, actor: creator });
    const task = await create(queue, "survive a crash");
    const holder = startAgent(["--url", one.url, "--queue", queue, "--work-ms", "60000", "--wait", "0"], { CLAIMBOARD_TOKEN: await token("doomed") });
    await holder.waitFor(new RegExp(`^claimed ${task.id} `, "m"), 60_000);
    holder.process.kill("SIGKILL");
    await holder.exited;
    // Nothing renews it now: this is when its lease ends.
    const [lease] = await database.client<{ until: string }[]>`SELECT lease_until::text AS until FROM tasks WHERE id = ${task.id}::bigint`;
    const waiter = await token("successor");
    const answer = await api(two).post("/claims", waiter, { queue, wait: 30 });
    expect(answer.status).toBe(200);
    expect((answer.body as { task: { id: string } }).task.id).toBe(task.id);
    // On the database's clock: the takeover's event against the lease it took over.
    const [row] = await database.client<{ late_ms: number }[]>`
      SELECT extract(epoch FROM (created_at - ${lease!.until}::timestamptz)) * 1000 AS late_ms
      FROM task_events WHERE task_id = ${task.id}::bigint AND type = 'claimed' ORDER BY id DESC LIMIT 1`;
    expect(Number(row!.late_ms)).toBeGreaterThanOrEqual(0);
    expect(Number(row!.late_ms)).toBeLessThan(1_500);
  }, 120_000);

  test("a completion with next.wait commits at once; the next claim waits and takes the task created meanwhile", async () => {
    const queue = await makeQueue(database.db, "loop-wait");
    const agent = await token("looper");
    const first = await create(queue, "first");
    const held = (await api(one).post("/claims", agent, { queue, start: true })).body as { task: { id: string; version: number } };
    const completing = api(one).post(`/tasks/${held.task.id}/complete`, agent, { version: held.task.version, next: { queue, start: true, wait: 20 } });
    await until(async () => (await database.client`SELECT 1 FROM tasks WHERE id = ${first.id}::bigint AND status = 'done'`).length === 1, "the completion to commit");
    const second = await create(queue, "second");
    const answer = await completing;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ task: { id: first.id, status: "done" }, next: { id: second.id, status: "started" } });
  }, 60_000);

  test("at the wait's end: 204 with no body (claims and batches); a completion's next is null", async () => {
    const queue = await makeQueue(database.db, "empty-wait");
    const agent = await token("patient");
    const began = Date.now();
    const [single, batch] = await Promise.all([
      api(one).post("/claims", agent, { queue, wait: 1 }),
      api(two).post("/claims/batch", agent, { queue, limit: 3, wait: 1 }),
    ]);
    expect([single.status, single.text, batch.status, batch.text]).toEqual([204, "", 204, ""]);
    expect(Date.now() - began).toBeGreaterThanOrEqual(950);
    expect(await openWaits(queue)).toBe(0);
  });
});

describe("caps", () => {
  test("a token's claim waits beyond its cap answer 429 rate_limited naming the cap; another token is unaffected; an ended wait frees its place", async () => {
    const queue = await makeQueue(database.db, "capped");
    const greedy = await token("greedy");
    const held = Array.from({ length: 3 }, () => api(one).post("/claims", greedy, { queue, wait: 3 }));
    await until(async () => (await openWaits(queue)) >= 1, "the waits to open");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = await expectError(await api(one).post("/claims", greedy, { queue, wait: 3 }), 429, "rate_limited");
    expect(refused.message).toMatch(/\b3\b.*claim waits.*per token/);
    // The cap is per instance: the other server still takes one, and so does another token here.
    const elsewhere = api(two).post("/claims", greedy, { queue, wait: 1 });
    expect((await api(one).post("/claims", await token("modest"), { queue, wait: 1 })).status).toBe(204);
    expect((await elsewhere).status).toBe(204);
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([204, 204, 204]);
    expect((await api(one).post("/claims", greedy, { queue, wait: 1 })).status).toBe(204);
  }, 60_000);
});
