import postgres from "postgres";
import { afterAll, beforeAll, expect, inject, test } from "vitest";
import { expectError, expectNoLeak, httpFixture, type HttpFixture, type HttpResult, type WireTask } from "./helpers";

// A database that refuses new connections — switched off (ALLOW_CONNECTIONS false), or gone
// — is `unavailable` (503, with Retry-After) on every kind of route, under load, never a
// 500; and the server carries on once the database takes connections again. (A role refused
// at login is classified the same way, from the driver's real errors, in
// lib/tasks/core/engine.test.ts: refused logins under load can leave a query of postgres.js
// 3.4.9 waiting forever — the driver's bug, reproduced without the app; docs/reliability.md.
// Terminated sessions under a burst can meet it here too: such a call answers 503 at the
// request deadline, shortened here, and the server replaces its pool: test/http/deadline.test.ts.)

let f: HttpFixture;
let admin: postgres.Sql;
let database: string;
let token: string;
let task: WireTask;

beforeAll(async () => {
  admin = postgres(inject("adminUrl"), { max: 1, onnotice: () => {} });
  f = await httpFixture({ REQUEST_DEADLINE_SECONDS: "8" });
  database = new URL(f.database.url).pathname.slice(1);
  token = await f.token("refused-agent");
  task = ((await f.api.post("/tasks", token, { title: "before the outage" })).body as { task: WireTask }).task;
});
afterAll(async () => {
  await f?.close();
  await admin?.end();
});

/** Ends every session on the database, so the server's pool must connect again. */
async function dropSessions(name: string) {
  await admin.unsafe(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`);
}

const REQUESTS: [string, string, unknown?][] = [
  ["POST", "/claims", {}],
  ["POST", "/claims/batch", { limit: 5 }],
  ["POST", "/tasks", { title: "during the outage" }],
  ["GET", "/tasks"],
  ["GET", "/tasks/1"],
  ["GET", "/tasks/1/events"],
  ["POST", "/tasks/1/heartbeat", { version: 1 }],
  ["POST", "/tasks/1/complete", { version: 1, next: {} }],
  ["POST", "/completions", { tasks: [{ id: "1", version: 1 }] }],
];

/** Under load: every request four times, all at once. */
async function burst(): Promise<{ request: string; res: HttpResult }[]> {
  return Promise.all(REQUESTS.flatMap(([method, path, json]) =>
    Array.from({ length: 4 }, async () => ({ request: `${method} ${path}`, res: await f.api.request(method, path, { token, json }) }))));
}

async function healthy(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await f.api.get("/health")).status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the server did not find its database again");
}

test("connections switched off (55000): every route answers 503 unavailable, then works again", async () => {
  await admin.unsafe(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS false`);
  await dropSessions(database);
  try {
    for (const { request, res } of await burst()) {
      expect(res.status, `${request}: ${res.text}`).toBe(503);
      expectNoLeak(res.text);
      // Refused at connect ("…unavailable…"), or, on a loaded machine, still connecting when the
      // request's deadline came ("…did not answer in time…"): both are this answer.
      expect(expectError(res, 503, "unavailable").message).toMatch(/unavailable|did not answer in time/);
      expect(res.headers.get("retry-after"), request).toBe("1");
    }
    expect((await f.api.get("/health")).body).toEqual({ ok: false, db: "down" });
  } finally {
    await admin.unsafe(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`);
  }
  await healthy();
  expect((await f.api.get(`/tasks/${task.id}`, token)).status).toBe(200);
  expect(f.server.output()).not.toMatch(/\[api\].*failed/);
});

test("a database that is gone (3D000) is 503 too, and found again when it is back", async () => {
  const renamed = `${database}_away`;
  await admin.unsafe(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS false`);
  await dropSessions(database);
  await admin.unsafe(`ALTER DATABASE "${database}" RENAME TO "${renamed}"`);
  try {
    for (const { request, res } of await burst()) expect(res.status, `${request}: ${res.text}`).toBe(503);
  } finally {
    await admin.unsafe(`ALTER DATABASE "${renamed}" RENAME TO "${database}"`);
    await admin.unsafe(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`);
  }
  await healthy();
  expect((await f.api.get(`/tasks/${task.id}`, token)).status).toBe(200);
});
