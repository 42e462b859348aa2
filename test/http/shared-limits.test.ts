import { afterAll, beforeAll, expect, test } from "vitest";
import { startServer, type TestServer } from "@/test/server";
import { Api, expectError, httpFixture, type HttpFixture } from "./helpers";

// The limits live in PostgreSQL (rate_buckets), so they hold across server instances: two
// `next start` processes on one database count against the same buckets, and a server that
// restarts remembers them. Refills are so slow here that none happens during the test.

const LIMITS = { RATE_LIMIT_BURST: "4", RATE_LIMIT_PER_SECOND: "0.01", AUTH_FAILURE_BURST: "3", AUTH_FAILURES_PER_MINUTE: "0.5" };

let a: HttpFixture;
let b: TestServer;
let apiB: Api;

beforeAll(async () => {
  a = await httpFixture(LIMITS);
  b = await startServer(a.database.url, LIMITS);
  apiB = new Api(`${b.url}/api/v1`);
});
afterAll(async () => {
  await b?.stop();
  await a?.close();
});

test("a token's burst is spent across both instances, not once per instance", async () => {
  const token = await a.token("two-homed");
  const statuses = [];
  for (const api of [a.api, apiB, a.api, apiB, a.api, apiB]) statuses.push((await api.get("/tasks?limit=1", token)).status);
  expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  expectError(await apiB.get("/tasks?limit=1", token), 429, "rate_limited");
  // Another token has its own bucket, on either instance.
  expect((await apiB.get("/tasks?limit=1", await a.token("other"))).status).toBe(200);
});

test("failed authentications from one address are throttled as one, whichever instance they reach", async () => {
  const bad = `cb_${"x".repeat(43)}`; // well formed, unknown
  const statuses = [];
  for (const api of [a.api, apiB, a.api, apiB, a.api]) statuses.push((await api.get("/tasks", bad)).status);
  expect(statuses).toEqual([401, 401, 401, 429, 429]);
  const limited = await apiB.get("/tasks", bad);
  expectError(limited, 429, "rate_limited");
  expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
});

test("a restarted instance remembers: the bucket is in the database, not the process", async () => {
  const token = await a.token("restarted");
  for (let i = 0; i < 4; i++) expect((await apiB.get("/tasks?limit=1", token)).status).toBe(200);
  await b.stop();
  b = await startServer(a.database.url, LIMITS);
  apiB = new Api(`${b.url}/api/v1`);
  expectError(await apiB.get("/tasks?limit=1", token), 429, "rate_limited");
  const [row] = await a.database.client`SELECT relpersistence FROM pg_class WHERE relname = 'rate_buckets'`;
  expect(row?.relpersistence).toBe("u"); // UNLOGGED: no WAL per request
});
