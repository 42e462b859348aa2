import postgres from "postgres";
import { connectDatabase } from "@/db/client";
import { createActor, createTask, perform, setQueueSettings } from "@/lib/tasks";
import { makeQueue } from "@/test/queues";
import { agentTokens } from "./http-cycle";
import { KeepAliveClient } from "./lib/http-client";
import type { BenchServerProcess } from "./lib/server";

// Waiting claims as an agent sees them (docs/contract.md "Waiting for work, not polling"): every
// figure here is over HTTP against a `next start` of the production build, on the bench's
// one PostgreSQL. docs/performance.md has the rows' goals.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** Waits open now on `queue` (claim_waits rows not yet ended). */
const openWaits = async (sql: postgres.Sql, queue: string) =>
  (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM claim_waits WHERE queue = ${queue} AND until > now()`)[0]!.n;

/**
 * create → claimed, ms, `tries` times: one agent waits on POST /claims (wait 30) and, once its
 * wait is open, this process creates a task through the engine (a transaction and its NOTIFY,
 * as any surface's create); the time runs from just before the create to the claim's answer.
 */
export async function wakeLatencies(next: BenchServerProcess, url: string, tries: number): Promise<{ total: number[]; inDatabase: number[] }> {
  const { db, client: sql } = connectDatabase(url, { max: 2 });
  const http = new KeepAliveClient(next.url, 2);
  try {
    const queue = await makeQueue(db, "bench-wake");
    const creator = await createActor(db, "user", "bench-creator");
    const [token] = await agentTokens(url, 1, `bench-wake-${Date.now()}`);
    const samples: number[] = [];
    const inDatabase: number[] = []; // the task's created event → its claimed event, on the database's clock
    for (let i = -2; i < tries; i++) {
      const answer = http.request("POST", "/api/v1/claims", auth(token!), { queue, wait: 30, start: true });
      await until(async () => (await openWaits(sql, queue)) === 1, "the wait to open");
      await sleep(20); // idle, as a waiting agent is
      const t0 = performance.now();
      const made = await perform(createTask, { title: `wake ${i}`, queue }, { db, actor: creator });
      if (!made.ok) throw new Error(made.error.message);
      const claimed = await answer;
      const t1 = performance.now();
      if (claimed.status !== 200) throw new Error(`waiting claim answered ${claimed.status}: ${claimed.text}`);
      const task = (JSON.parse(claimed.text) as { task: { id: string; version: number } }).task;
      if (i >= 0) {
        samples.push(t1 - t0); // the first two warm the route, off the clock
        const [row] = await sql<{ ms: number }[]>`
          SELECT extract(epoch FROM (max(created_at) FILTER (WHERE type = 'claimed') - min(created_at))) * 1000 AS ms
          FROM task_events WHERE task_id = ${task.id}::bigint`;
        inDatabase.push(Number(row!.ms));
      }
      const done = await http.request("POST", `/api/v1/tasks/${task.id}/complete`, auth(token!), { version: task.version });
      if (done.status !== 200) throw new Error(`complete answered ${done.status}: ${done.text}`);
    }
    return { total: samples, inDatabase };
  } finally {
    http.close();
    await sql.end();
  }
}

/**
 * Lease end → taken over by a waiting agent, ms on the database's clock, `rounds` × `perRound`
 * times. A holder claims `perRound` tasks on a queue with the shortest lease (5 s) and never
 * renews; as many agents wait on the queue; each takeover's `claimed` event is compared with
 * the lease_until the holder's claim wrote.
 */
export async function lapseLatencies(next: BenchServerProcess, url: string, rounds: number, perRound: number): Promise<number[]> {
  const { db, client: sql } = connectDatabase(url, { max: 2 });
  const http = new KeepAliveClient(next.url, perRound + 2);
  try {
    const creator = await createActor(db, "user", "bench-lapse-creator");
    const queue = await makeQueue(db, "bench-lapse");
    const set = await perform(setQueueSettings, { queue, leaseSeconds: 5 }, { db, actor: creator });
    if (!set.ok) throw new Error(set.error.message);
    const [holder, ...waiters] = await agentTokens(url, perRound + 1, `bench-lapse-${Date.now()}`);
    const samples: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const leases = new Map<string, string>();
      for (let i = 0; i < perRound; i++) {
        const made = await perform(createTask, { title: `lapse ${round}.${i}`, queue }, { db, actor: creator });
        if (!made.ok) throw new Error(made.error.message);
        const held = await http.request("POST", "/api/v1/claims", auth(holder!), { queue });
        if (held.status !== 200) throw new Error(`holder's claim answered ${held.status}: ${held.text}`);
        const id = (JSON.parse(held.text) as { task: { id: string } }).task.id;
        const [row] = await sql<{ until: string }[]>`SELECT lease_until::text AS until FROM tasks WHERE id = ${id}::bigint`;
        leases.set(id, row!.until);
      }
      const taken = await Promise.all(waiters.map((t) => http.request("POST", "/api/v1/claims", auth(t), { queue, wait: 30, start: true })));
      for (const [n, answer] of taken.entries()) {
        if (answer.status !== 200) throw new Error(`waiting claim answered ${answer.status}: ${answer.text}`);
        const { id, version } = (JSON.parse(answer.text) as { task: { id: string; version: number } }).task;
        // Done, so its lease does not lapse into the next round's takeovers.
        const done = await http.request("POST", `/api/v1/tasks/${id}/complete`, auth(waiters[n]!), { version });
        if (done.status !== 200) throw new Error(`complete answered ${done.status}: ${done.text}`);
        const [row] = await sql<{ late_ms: number }[]>`
          SELECT extract(epoch FROM (created_at - ${leases.get(id)!}::timestamptz)) * 1000 AS late_ms
          FROM task_events WHERE task_id = ${id}::bigint AND type = 'claimed' ORDER BY id DESC LIMIT 1`;
        samples.push(Number(row!.late_ms));
      }
    }
    return samples;
  } finally {
    http.close();
    await sql.end();
  }
}

/** Transactions committed or rolled back in `database` so far (pg_stat_database). */
const transactions = async (admin: postgres.Sql, database: string) =>
  Number((await admin<{ n: string }[]>`SELECT (xact_commit + xact_rollback)::text AS n FROM pg_stat_database WHERE datname = ${database}`)[0]!.n);

export type IdleAgent = "waiting" | "polling";

/**
 * Transactions a second on `database` while `count` idle agents run for `windowMs` on an empty
 * queue, in steady state. A waiting agent holds POST /claims {wait: `waitSeconds`} and asks again
 * when it ends (its first wait of a random length up to that, so renewals are spread as agents
 * started at different times are); the old polling agent claims (no wait) every 10 s, the end of
 * its 1 → 10 s backoff, its phase random too.
 */
export async function idleLoad(next: BenchServerProcess, admin: postgres.Sql, url: string, tokens: string[], kind: IdleAgent, windowMs: number, waitSeconds: number): Promise<number> {
  const database = url.split("/").at(-1)!;
  const http = new KeepAliveClient(next.url, tokens.length + 1);
  const { db, client: sql } = connectDatabase(url, { max: 1 });
  let running = true;
  const nap = async (ms: number) => {
    const end = Date.now() + ms;
    while (running && Date.now() < end) await sleep(Math.min(100, end - Date.now()));
  };
  try {
    const queue = await makeQueue(db, "bench-idle");
    // The last measurement's agents gone (their waits ended, PostgreSQL's stats of that flushed):
    // what they wrote on the way out is not this window's.
    await until(async () => (await openWaits(sql, queue)) === 0, "the last waits to end");
    await sleep(2000);
    const agent = async (token: string) => {
      if (kind === "polling") await nap(Math.random() * 10_000);
      let wait = Math.ceil(Math.random() * waitSeconds);
      while (running) {
        const answer = await http.request("POST", "/api/v1/claims", auth(token), kind === "waiting" ? { queue, wait } : { queue }).catch((error: unknown) => {
          if (running) throw error;
          return null; // the client closed under it at the end
        });
        if (answer && answer.status !== 204) throw new Error(`idle claim answered ${answer.status}: ${answer.text}`);
        wait = waitSeconds;
        if (kind === "polling") await nap(10_000);
      }
    };
    const agents = tokens.map(agent);
    if (kind === "waiting") await until(async () => (await openWaits(sql, queue)) === tokens.length, "every wait to open");
    await sleep(1500); // past the openings, and pg_stat's flush of them (at most once a second per backend)
    const before = await transactions(admin, database);
    const t0 = performance.now();
    await sleep(windowMs);
    const after = await transactions(admin, database);
    const rate = (after - before) / ((performance.now() - t0) / 1000);
    running = false;
    http.close(); // ends the open waits at once: the server sees its clients go
    await Promise.all(agents);
    return rate;
  } finally {
    running = false;
    http.close();
    await sql.end();
  }
}
