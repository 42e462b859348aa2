import { afterAll, beforeAll, expect, test } from "vitest";
import { httpFixture, type HttpFixture, type WireTask } from "./helpers";

// 64 agents over HTTP against one server drain 1,000 tasks with claim-next {start:true} and
// complete; one claim in ten is abandoned (no heartbeat, no complete), and later claims
// reclaim those lazily once their 5-second lease lapses — nothing sweeps. Every task ends
// done exactly once, one lease_expired per abandonment, never a 5xx.

const CLIENTS = 64;
const TASKS = 1000;
const QUEUE = "load";
const LEASE_SECONDS = 5;
const ABANDON_EVERY = 10;
const DEADLINE_MS = 240_000; // a bound on the loop (never a speed assertion): generous for a loaded 2-core machine
/** A client that finds nothing claimable while abandoned leases are pending looks again after this. */
const IDLE_POLL_MS = 200;

let f: HttpFixture;
let tokens: string[];

beforeAll(async () => {
  f = await httpFixture({ RATE_LIMIT_PER_SECOND: "100000", RATE_LIMIT_BURST: "100000" });
  await f.queueSettings(QUEUE, { expiryThreshold: 100_000 });
  tokens = [];
  for (let i = 0; i < CLIENTS; i++) tokens.push(await f.token(`load-agent-${i}`));
  await f.database.client`
    INSERT INTO tasks (queue, title, priority)
    SELECT ${QUEUE}, 'Load task ' || g, 0 FROM generate_series(1, ${TASKS}) g`;
});
afterAll(async () => {
  await f?.close();
});

interface Tally {
  statuses: Map<number, number>;
  requests: number;
  /** Milliseconds per request, client-side. */
  latencies: number[];
  /** When claim-next first found nothing (every task had been handed out once), and the requests by then. */
  firstEmpty: { at: number; requests: number } | null;
  claims: number;
  abandoned: string[];
  completed: Map<string, number>;
  /**
   * Completes refused because the lease lapsed in the client's hands and another client
   * reclaimed the task: an agent too slow for its lease (a starved CPU can do that to a
   * 5 s lease) is an abandonment the agent did not choose. Each must have a lease_expired.
   */
  late: { id: string; version: number }[];
  /** Anything else but 200/204 from claim-next or 200 from complete, and tasks handed out not started. */
  anomalies: string[];
}

const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function post(path: string, token: string, body: unknown, tally: Tally): Promise<{ status: number; body: unknown }> {
  const began = performance.now();
  const response = await fetch(`${f.server.url}/api/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  tally.requests++;
  tally.latencies.push(performance.now() - began);
  tally.statuses.set(response.status, (tally.statuses.get(response.status) ?? 0) + 1);
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function agent(token: string, tally: Tally, deadline: number): Promise<void> {
  while (tally.completed.size < TASKS && performance.now() < deadline) {
    const claimed = await post("/claims", token, { queue: QUEUE, start: true, leaseSeconds: LEASE_SECONDS }, tally);
    if (claimed.status === 204) {
      tally.firstEmpty ??= { at: performance.now(), requests: tally.requests };
      await idle(IDLE_POLL_MS); // only abandoned leases are left: wait for them to lapse
      continue;
    }
    if (claimed.status !== 200) {
      tally.anomalies.push(`claim → ${claimed.status} ${JSON.stringify(claimed.body)}`);
      continue;
    }
    const task = (claimed.body as { task: WireTask }).task;
    if (task.status !== "started") tally.anomalies.push(`claim handed out task ${task.id} ${task.status}`);
    if (++tally.claims % ABANDON_EVERY === 0) {
      tally.abandoned.push(task.id); // drop it: no heartbeat, no complete
      continue;
    }
    const done = await post(`/tasks/${task.id}/complete`, token, { version: task.version }, tally);
    const code = (done.body as { error?: { code?: string } } | undefined)?.error?.code;
    if (done.status === 200) tally.completed.set(task.id, (tally.completed.get(task.id) ?? 0) + 1);
    else if (done.status === 409 && (code === "not_owner" || code === "invalid_transition")) tally.late.push({ id: task.id, version: task.version });
    else tally.anomalies.push(`complete ${task.id} v${task.version} → ${done.status} ${JSON.stringify(done.body)}`);
  }
}

test(`${CLIENTS} HTTP clients drain ${TASKS} tasks; abandoned claims are reclaimed lazily`, { timeout: 300_000 }, async () => {
  const tally: Tally = { statuses: new Map(), requests: 0, latencies: [], firstEmpty: null, claims: 0, abandoned: [], completed: new Map(), late: [], anomalies: [] };
  const began = performance.now();
  await Promise.all(tokens.map((token) => agent(token, tally, began + DEADLINE_MS)));
  const seconds = (performance.now() - began) / 1000;

  const sql = f.database.client;
  const [counts] = await sql<{ total: number; done: number }[]>`
    SELECT count(*)::int AS total, count(*) FILTER (WHERE status = 'done')::int AS done FROM tasks WHERE queue = ${QUEUE}`;
  const completions = await sql<{ task_id: string; n: number }[]>`
    SELECT task_id::text, count(*)::int AS n FROM task_events
    WHERE queue = ${QUEUE} AND type = 'completed' GROUP BY task_id`;
  const [expiries] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM task_events WHERE queue = ${QUEUE} AND type = 'lease_expired'`;
  // No lease was expired early: each lease_expired came at or after the lease_until its claim set.
  const early = await sql<{ task_id: string; expired_at: Date; lease_until: Date }[]>`
    SELECT e.task_id::text, e.created_at AS expired_at, c.lease_until FROM task_events e
    CROSS JOIN LATERAL (
      SELECT (p.payload->>'leaseUntil')::timestamptz AS lease_until FROM task_events p
      WHERE p.task_id = e.task_id AND p.type = 'claimed' AND p.id < e.id ORDER BY p.id DESC LIMIT 1) c
    WHERE e.queue = ${QUEUE} AND e.type = 'lease_expired' AND (c.lease_until IS NULL OR e.created_at < c.lease_until)`;
  const lateExpiries = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM task_events e
    JOIN jsonb_to_recordset(${JSON.stringify(tally.late)}::jsonb) AS l(id text, version int)
      ON e.task_id = l.id::bigint AND e.type = 'lease_expired' AND (e.payload->>'version')::int = l.version + 1`;
  const [trips] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM task_events WHERE queue = ${QUEUE} AND type = 'breaker_tripped'`;

  const statuses = Object.fromEntries([...tally.statuses].sort(([a], [b]) => a - b));
  const sorted = tally.latencies.sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!.toFixed(0);
  const drain = tally.firstEmpty ? (tally.firstEmpty.at - began) / 1000 : seconds;
  console.log(
    `[load] ${CLIENTS} clients, ${TASKS} tasks: ${seconds.toFixed(1)} s in all (including the ${LEASE_SECONDS} s lease lapses), ` +
      `${(TASKS / seconds).toFixed(0)} tasks/s overall; first pass over the queue in ${drain.toFixed(1)} s ` +
      `(${((tally.firstEmpty?.requests ?? tally.requests) / drain).toFixed(0)} requests/s); latency p50 ${pct(50)} ms, p99 ${pct(99)} ms; ` +
      `${tally.claims} claims, ${tally.abandoned.length} abandoned, ${tally.late.length} completed too late (lease lapsed in hand), ` +
      `${expiries!.n} lease_expired; statuses ${JSON.stringify(statuses)}`,
  );

  expect([...tally.statuses.keys()].filter((status) => status >= 500)).toEqual([]);
  expect(tally.anomalies.slice(0, 10)).toEqual([]);
  expect(tally.completed.size >= TASKS, `all ${TASKS} tasks completed within ${DEADLINE_MS / 1000} s`).toBe(true);
  expect(counts).toEqual({ total: TASKS, done: TASKS });
  expect(tally.completed.size).toBe(TASKS);
  expect([...tally.completed.values()].every((n) => n === 1)).toBe(true);
  expect(completions).toHaveLength(TASKS);
  expect(completions.filter((c) => c.n !== 1)).toEqual([]);
  expect(tally.abandoned.length).toBeGreaterThan(0);
  expect(expiries!.n).toBe(tally.abandoned.length + tally.late.length);
  expect(lateExpiries[0]!.n).toBe(tally.late.length);
  expect(early).toEqual([]);
  expect(trips!.n).toBe(0);
});
