import { afterAll, beforeAll, expect, test } from "vitest";
import { parsePrometheus, seriesKey, type Series } from "@/test/prometheus";
import { openEventStream } from "@/test/sse";
import { expectError, expectTaskResponse, httpFixture, type HttpFixture } from "./helpers";

// GET /api/v1/metrics on a real server: who may read it, that Prometheus could parse it,
// and that its numbers move with a scripted run — checked against the tables, not against
// figures written into the test.

let f: HttpFixture;
let operator: string;
let supervisor: string;
let amal: string;
let bilal: string;

beforeAll(async () => {
  f = await httpFixture();
  operator = await f.token("prometheus", "observer");
  supervisor = await f.token("sara-scraper", "supervisor");
  amal = await f.token("Amal");
  bilal = await f.token("Bilal");
});
afterAll(async () => {
  await f?.close();
});

async function scrape(token = operator): Promise<Series> {
  const res = await f.api.get("/metrics", token);
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return parsePrometheus(res.text).series;
}

const value = (s: Series, name: string, labels: Record<string, string> = {}) => s.get(seriesKey(name, labels)) ?? 0;

test("anonymous callers, bad tokens and agent tokens are refused; observer and supervisor tokens read it", async () => {
  expectError(await f.api.get("/metrics"), 401, "unauthorized");
  expectError(await f.api.get("/metrics", "cb_not_a_token"), 401, "unauthorized");
  expectError(await f.api.get("/metrics", amal), 403, "forbidden");
  const { types } = parsePrometheus((await f.api.get("/metrics", supervisor)).text);
  expect(Object.fromEntries(types)).toMatchObject({
    claimboard_tasks: "gauge",
    claimboard_events_total: "counter",
    claimboard_conflicts_total: "counter",
    claimboard_claim_duration_seconds: "histogram",
    claimboard_sse_subscribers: "gauge",
    claimboard_listen_reconnects_total: "counter",
    claimboard_queue_breaker_tripped: "gauge",
  });
});

test("counters move with a scripted run: events as in task_events, conflicts by code, claim latencies, tasks by status", async () => {
  const before = await scrape();
  const queue = await f.queue("metrics");
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push(expectTaskResponse(await f.api.post("/tasks", amal, { title: `m${i}`, queue }), 201).id);
  const claimed = [];
  for (let i = 0; i < 3; i++) claimed.push(expectTaskResponse(await f.api.post("/claims", amal, { queue, start: true })));
  // Bilal, too late for the first: one already_claimed.
  expectError(await f.api.post(`/tasks/${claimed[0]!.id}/claim`, bilal, { version: 1 }), 409, "already_claimed");
  for (const task of claimed.slice(0, 2)) expectTaskResponse(await f.api.post(`/tasks/${task.id}/complete`, amal, { version: task.version }));
  // The third's lease lapses; Bilal reclaims it (lease_expired + claimed), then Amal's completion is refused.
  await f.lapseLease(claimed[2]!.id);
  expectTaskResponse(await f.api.post(`/tasks/${claimed[2]!.id}/claim`, bilal, { version: claimed[2]!.version }));
  expectError(await f.api.post(`/tasks/${claimed[2]!.id}/complete`, amal, { version: claimed[2]!.version }), 409, "not_owner");

  const rows = await f.database.client<{ type: string; n: number }[]>`
    SELECT type, count(*)::int AS n FROM task_events WHERE queue = ${queue} GROUP BY type`;
  const expected = Object.fromEntries(rows.map((r) => [r.type, r.n]));
  // A claim with start is one claimed event (started: true): no started rows.
  expect(expected).toEqual({ created: 4, claimed: 4, claim_rejected: 1, completed: 2, lease_expired: 1 });
  let after = before;
  const counted = () => Object.fromEntries(Object.keys(expected).map((type) => [type, value(after, "claimboard_events_total", { queue, type })]));
  // The hub reads committed events asynchronously: scrape until it has seen them all.
  const deadline = Date.now() + 30_000;
  while (JSON.stringify(counted()) !== JSON.stringify(expected) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    after = await scrape();
  }
  expect(counted()).toEqual(expected);

  const delta = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);
  expect(delta("claimboard_conflicts_total", { code: "already_claimed" })).toBe(1);
  expect(delta("claimboard_conflicts_total", { code: "not_owner" })).toBe(1);
  expect(delta("claimboard_claim_duration_seconds_count", { operation: "claimNext" })).toBe(3);
  expect(delta("claimboard_claim_duration_seconds_count", { operation: "claim" })).toBe(2);
  expect(delta("claimboard_claim_duration_seconds_bucket", { operation: "claimNext", le: "+Inf" })).toBe(3);
  expect(delta("claimboard_claim_duration_seconds_sum", { operation: "claimNext" })).toBeGreaterThan(0);

  const statuses = await f.database.client<{ status: string; n: number }[]>`
    SELECT status, count(*)::int AS n FROM tasks WHERE queue = ${queue} GROUP BY status`;
  expect(statuses.length).toBeGreaterThan(1);
  for (const { status, n } of statuses) expect(value(after, "claimboard_tasks", { queue, status }), status).toBe(n);
});

test("open event streams are counted while they are open", async () => {
  const base = value(await scrape(), "claimboard_sse_subscribers");
  const stream = await openEventStream(`${f.api.base}/events`, { token: amal });
  try {
    let now = await scrape();
    const deadline = Date.now() + 10_000;
    while (value(now, "claimboard_sse_subscribers") !== base + 1 && Date.now() < deadline) now = await scrape();
    expect(value(now, "claimboard_sse_subscribers")).toBe(base + 1);
  } finally {
    stream.close();
  }
  let now = await scrape();
  const deadline = Date.now() + 10_000;
  while (value(now, "claimboard_sse_subscribers") !== base && Date.now() < deadline) now = await scrape();
  expect(value(now, "claimboard_sse_subscribers")).toBe(base);
});
