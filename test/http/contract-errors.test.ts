import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { revokeAgentToken } from "@/lib/auth/tokens";
import { holdRowLock } from "@/test/clients";
import { expectError, expectTaskResponse, httpFixture, type HttpFixture, type HttpResult } from "./helpers";
import { contractFixture } from "./contract-fixture";

// docs/contract.md over real HTTP: every row of the error table, against `next start` and
// PostgreSQL (the success shapes: contract.test.ts). Each test works in a queue of its own.

const contract = contractFixture();
const { newQueue, create, claimedBy, startedBy, current, events } = contract;
let f: HttpFixture;
let amal: string;
let bilal: string;
let watcher: string;
beforeAll(() => {
  ({ f, amal, bilal, watcher } = contract.the);
});

const unknownToken = () => `cb_${randomBytes(32).toString("base64url")}`;

describe("400 invalid_request", () => {
  test("a bad body field is named in the message and in `field`", async () => {
    const error = expectError(await f.api.post("/tasks", amal, { title: 5 }), 400, "invalid_request");
    expect(error.field).toBe("title");
    expect(error.message).toContain("title");

    const task = await create(await newQueue("bad-field"));
    const start = expectError(await f.api.post(`/tasks/${task.id}/claim`, amal, { version: "1" }), 400, "invalid_request");
    expect(start.message).toContain("version");
    const lease = expectError(await f.api.post("/claims", amal, { leaseSeconds: 4 }), 400, "invalid_request");
    expect(lease.field).toBe("leaseSeconds");
    expect(lease.message).toContain("leaseSeconds");
    const missing = expectError(await f.api.post(`/tasks/${task.id}/fail`, amal, { version: 1 }), 400, "invalid_request");
    expect(missing.message).toContain("reason");
  });

  test("malformed JSON, invalid UTF-8 and an unknown field", async () => {
    const malformed = await f.api.request("POST", "/tasks", {
      token: amal, raw: '{"title": "x",', headers: { "content-type": "application/json" },
    });
    expect(expectError(malformed, 400, "invalid_request").message).toMatch(/JSON/);
    const bytes = await f.api.request("POST", "/tasks", {
      token: amal, raw: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), headers: { "content-type": "application/json" },
    });
    expectError(bytes, 400, "invalid_request");
    const unknown = expectError(await f.api.post("/tasks", amal, { title: "x", colour: "red" }), 400, "invalid_request");
    expect(unknown.message).toContain("colour");
  });

  test("a JSON value nested 3,000 deep (6 KB) is refused, not a 500", async () => {
    const deep = "[".repeat(3000) + "]".repeat(3000);
    const task = await startedBy(amal, await newQueue("deep"));
    for (const [path, text] of [
      ["/tasks", `{"title":"deep","payload":{"x":${deep}}}`],
      [`/tasks/${task.id}/heartbeat`, `{"version":3,"progress":${deep}}`],
      [`/tasks/${task.id}/complete`, `{"version":3,"result":${deep}}`],
    ]) {
      const res = await f.api.request("POST", path!, { token: amal, raw: text, headers: { "content-type": "application/json" } });
      expect(expectError(res, 400, "invalid_request").message, path).toMatch(/nest|deep/);
    }
    expect(await current(task.id)).toMatchObject({ status: "started", version: 3 });
  });

  test("a key named __proto__, at any depth, is refused rather than dropped", async () => {
    for (const text of ['{"title":"proto","payload":{"__proto__":{"x":1}}}', '{"title":"proto","payload":{"a":[{"__proto__":1}]}}']) {
      const res = await f.api.request("POST", "/tasks", { token: amal, raw: text, headers: { "content-type": "application/json" } });
      expect(expectError(res, 400, "invalid_request").message).toContain("__proto__");
    }
    const [row] = await f.database.client<{ n: number }[]>`SELECT count(*)::int AS n FROM tasks WHERE title = 'proto'`;
    expect(row!.n).toBe(0);
  });

  test("a bad query parameter or path id is named", async () => {
    for (const [path, field] of [
      ["/tasks?limit=0", "limit"],
      ["/tasks?limit=101", "limit"],
      ["/tasks?status=pending", "status"],
      ["/tasks?owner=you", "owner"],
      ["/tasks?cursor=abc", "cursor"],
      ["/tasks?queue=Not%20A%20Queue", "queue"],
      [`/tasks?q=${"x".repeat(10_000)}`, "q"],
      ["/tasks?q=", "q"],
      ["/tasks?sort=random", "sort"],
      ["/tasks?sort=priority&order=id", "sort"],
      [`/tasks/counts?q=${"x".repeat(10_000)}`, "q"],
      ["/tasks/counts?status=queued", "status"],
    ] as const) {
      const error = expectError(await f.api.get(path, amal), 400, "invalid_request");
      expect(error.message, path).toContain(field);
    }
    expect(expectError(await f.api.get("/tasks?colour=red", amal), 400, "invalid_request").message).toContain("colour");
    const task = await create(await newQueue("bad-query"));
    expectError(await f.api.get(`/tasks/${task.id}/events?after=x`, amal), 400, "invalid_request");
    expectError(await f.api.get(`/tasks/${task.id}/events?limit=-1`, amal), 400, "invalid_request");
    expect(expectError(await f.api.get("/tasks/abc", amal), 400, "invalid_request").message).toContain("id");
    expectError(await f.api.get("/tasks/99999999999999999999", amal), 400, "invalid_request");
    expectError(await f.api.post("/tasks/0/claim", amal, { version: 1 }), 400, "invalid_request");
  });
});

test("200, not 500: search text that is tsquery syntax is only words", async () => {
  for (const q of ["a & | ! ( :*", "'", "\\", "!!!", "x' | 'y", "<->", "%00"]) {
    const res = await f.api.get(`/tasks?q=${encodeURIComponent(q)}&sort=updated`, amal);
    expect(res.status, `${q}: ${res.text}`).toBe(200);
    expect((await f.api.get(`/tasks/counts?q=${encodeURIComponent(q)}`, amal)).status, q).toBe(200);
  }
});

test("400, not 500: a malformed percent-encoding in a path id", async () => {
  for (const path of ["/tasks/%E0%A4%A", "/tasks/%ZZ", "/tasks/%E0%A4%A/events"]) {
    expectError(await f.api.get(path, amal), 400, "invalid_request");
  }
  expectError(await f.api.post("/tasks/%E0%A4%A/claim", amal, { version: 1 }), 400, "invalid_request");
});

test("an unknown path under /api/v1 answers in the error shape, not an HTML page", async () => {
  expectError(await f.api.get("/nope", amal), 404, "not_found");
  const task = await create(await newQueue("unknown-path"));
  expectError(await f.api.post(`/tasks/${task.id}/finish`, amal, { version: 1 }), 404, "not_found");
});

describe("401 unauthorized", () => {
  test("no token, another scheme, an unknown token: 401 with WWW-Authenticate, before any validation", async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: "Basic YW1hbDpzZWNyZXQ=" }, { authorization: `Bearer ${unknownToken()}` }];
    for (const headers of attempts) {
      const res = await f.api.request("POST", "/tasks", { json: { title: 5 }, headers });
      expectError(res, 401, "unauthorized");
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    }
    expectError(await f.api.get("/tasks"), 401, "unauthorized");
  });

  test("a revoked token is refused on the very next request", async () => {
    const token = await f.token("revokee");
    expect((await f.api.get("/tasks?limit=1", token)).status).toBe(200);
    expect(await revokeAgentToken(f.database.db, "revokee")).toBe(true);
    expectError(await f.api.get("/tasks?limit=1", token), 401, "unauthorized");
    expectError(await f.api.post("/tasks", token, { title: "after revocation" }), 401, "unauthorized");
  });
});

test("403 forbidden: an observer token reads but may not POST", async () => {
  const queue = await newQueue("observer");
  const task = await create(queue);
  const before = await f.eventCount();
  expectError(await f.api.post("/tasks", watcher, { title: "nope", queue }), 403, "forbidden");
  expectError(await f.api.post("/claims", watcher, { queue }), 403, "forbidden");
  expectError(await f.api.post("/claims/batch", watcher, { queue, limit: 1 }), 403, "forbidden");
  expectError(await f.api.post(`/tasks/${task.id}/claim`, watcher, { version: 1 }), 403, "forbidden");
  expect(await f.eventCount()).toBe(before);
  expect((await f.api.get(`/tasks?queue=${queue}`, watcher)).status).toBe(200);
  expect((await f.api.get(`/tasks/${task.id}`, watcher)).status).toBe(200);
  expect((await f.api.get(`/tasks/${task.id}/events`, watcher)).status).toBe(200);
});

test("404 not_found: no such task, on reads and owner calls", async () => {
  const missing = "987654321";
  for (const res of [
    await f.api.get(`/tasks/${missing}`, amal),
    await f.api.get(`/tasks/${missing}/events`, amal),
    await f.api.post(`/tasks/${missing}/claim`, amal, { version: 1 }),
    await f.api.post(`/tasks/${missing}/start`, amal, { version: 2 }),
    await f.api.post(`/tasks/${missing}/complete`, amal, { version: 3 }),
  ]) {
    expect(expectError(res, 404, "not_found").message).toContain(missing);
  }
});

describe("409 conflicts", () => {
  test("already_claimed names the owner and carries the current task", async () => {
    const task = await claimedBy(amal, await newQueue("already"));
    const error = expectError(await f.api.post(`/tasks/${task.id}/claim`, bilal, { version: 1 }), 409, "already_claimed");
    expect(error.message).toContain("amal");
    expect(error.task).toMatchObject({ id: task.id, version: 2, status: "claimed", owner: { name: "amal", kind: "agent" } });
  });

  test("version_conflict: `task` is the current state", async () => {
    const queued = await create(await newQueue("version"));
    const error = expectError(await f.api.post(`/tasks/${queued.id}/claim`, bilal, { version: 7 }), 409, "version_conflict");
    expect(error.task).toEqual(await current(queued.id));

    const mine = await claimedBy(amal, await newQueue("version"));
    const stale = expectError(await f.api.post(`/tasks/${mine.id}/start`, amal, { version: 1 }), 409, "version_conflict");
    expect(stale.task).toEqual(await current(mine.id));
    expect(stale.task).toMatchObject({ version: 2, status: "claimed" });
  });

  test("not_owner: another agent's task", async () => {
    const task = await claimedBy(amal, await newQueue("owner"));
    for (const verb of ["start", "heartbeat", "release", "complete"]) {
      const error = expectError(await f.api.post(`/tasks/${task.id}/${verb}`, bilal, { version: 2 }), 409, "not_owner");
      expect(error.task).toMatchObject({ id: task.id, owner: { name: "amal" }, version: 2 });
    }
    expectError(await f.api.post(`/tasks/${task.id}/fail`, bilal, { version: 2, reason: "not mine" }), 409, "not_owner");
    expect(await current(task.id)).toMatchObject({ status: "claimed", version: 2, owner: { name: "amal" } });
  });

  test("lease_expired: start and renew after the lapse; complete is still allowed when nobody reclaimed", async () => {
    const queue = await newQueue("lapse");
    const task = await claimedBy(amal, queue);
    await f.lapseLease(task.id);
    for (const [verb, body] of [
      ["start", { version: 2 }],
      ["heartbeat", { version: 2 }],
      ["side-effects", { version: 2, description: "too late" }],
    ] as const) {
      const error = expectError(await f.api.post(`/tasks/${task.id}/${verb}`, amal, body), 409, "lease_expired");
      expect(error.task).toMatchObject({ id: task.id, version: 2, owner: { name: "amal" } });
    }

    const running = await startedBy(amal, queue);
    await f.lapseLease(running.id);
    expect(expectTaskResponse(await f.api.post(`/tasks/${running.id}/complete`, amal, { version: 3 }))).toMatchObject({
      status: "done", version: 4,
    });
  });

  test("invalid_transition: complete (or start) a queued task", async () => {
    const task = await create(await newQueue("transition"));
    const error = expectError(await f.api.post(`/tasks/${task.id}/complete`, amal, { version: 1 }), 409, "invalid_transition");
    expect(error.task).toEqual(await current(task.id));
    expectError(await f.api.post(`/tasks/${task.id}/start`, amal, { version: 1 }), 409, "invalid_transition");
  });

  test("check_required: a needs_check task starts only with confirmCheck", async () => {
    const task = await startedBy(amal, await newQueue("check"));
    expectTaskResponse(await f.api.post(`/tasks/${task.id}/side-effects`, amal, { version: 3, description: "sent the invoice" }));
    await f.lapseLease(task.id);
    const reclaimed = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, bilal, { version: 3 }));
    expect(reclaimed).toMatchObject({ status: "claimed", version: 5, needsCheck: true, owner: { name: "bilal" } });

    const error = expectError(await f.api.post(`/tasks/${task.id}/start`, bilal, { version: 5 }), 409, "check_required");
    expect(error.task).toMatchObject({ version: 5, needsCheck: true });
    const confirmed = expectTaskResponse(await f.api.post(`/tasks/${task.id}/start`, bilal, { version: 5, confirmCheck: true }));
    expect(confirmed).toMatchObject({ status: "started", version: 6, needsCheck: false });
    expect((await events(task.id)).map((e) => e.type).slice(-3)).toEqual(["claimed", "check_confirmed", "started"]);
  });

  test("claim-next with start:true hands back a needs_check task claimed, not started", async () => {
    const queue = await newQueue("check-start");
    const task = await startedBy(amal, queue);
    expectTaskResponse(await f.api.post(`/tasks/${task.id}/side-effects`, amal, { version: 3, description: "charged the card" }));
    await f.lapseLease(task.id);
    const taken = expectTaskResponse(await f.api.post("/claims", bilal, { queue, start: true }));
    expect(taken).toMatchObject({ id: task.id, status: "claimed", version: 5, needsCheck: true, owner: { name: "bilal" } });
    expect((await events(task.id)).map((e) => e.type).slice(-2)).toEqual(["lease_expired", "claimed"]);
    expectError(await f.api.post(`/tasks/${task.id}/start`, bilal, { version: 5 }), 409, "check_required");
  });

  test("busy: a targeted claim on a row another transaction holds answers within ~1 s, with Retry-After", async () => {
    const queue = await newQueue("busy");
    const task = await create(queue);
    const eventsBefore = await f.eventCount(task.id);
    const holder = await holdRowLock(f.database.url, task.id);
    try {
      const began = performance.now();
      const res = await f.api.post(`/tasks/${task.id}/claim`, bilal, { version: 1 });
      const elapsed = performance.now() - began;
      const error = expectError(res, 409, "busy");
      expect(res.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
      expect(error.task).toMatchObject({ id: task.id, status: "queued", version: 1 });
      // The targeted claim's own 1 s lock_timeout, not the connection's 5 s one, nor a hang.
      expect(elapsed).toBeGreaterThanOrEqual(900);
      expect(elapsed).toBeLessThan(4000);
      // Claim-next never waits: it skips the locked row and answers while the lock is still held.
      expect((await f.api.post("/claims", bilal, { queue })).status).toBe(204);
    } finally {
      await holder.release();
    }
    expect(await f.eventCount(task.id)).toBe(eventsBefore);
    expect(expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, bilal, { version: 1 }))).toMatchObject({ version: 2 });
  });
});

describe("413 payload_too_large", () => {
  test("a 300 KiB body is refused", async () => {
    const before = await f.eventCount();
    const res = await f.api.post("/tasks", amal, { title: "big", description: "x".repeat(300 * 1024) });
    expectError(res, 413, "payload_too_large");
    expect(await f.eventCount()).toBe(before);
  });

  test("a streamed body with no Content-Length is cut off at the limit", async () => {
    const chunk = new TextEncoder().encode("x".repeat(16 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"title":"big","description":"'));
        if (sent < 20) controller.enqueue(chunk);
        else {
          controller.enqueue(new TextEncoder().encode('"}'));
          controller.close();
        }
        sent++;
      },
    });
    const res = await f.api.request("POST", "/tasks", { token: amal, raw: stream, headers: { "content-type": "application/json" } });
    expectError(res, 413, "payload_too_large");
  });
});

describe("429 rate_limited (a second server with tight limits)", () => {
  let tight: HttpFixture;
  beforeAll(async () => {
    tight = await httpFixture({
      RATE_LIMIT_PER_SECOND: "1", RATE_LIMIT_BURST: "3", AUTH_FAILURE_BURST: "3", AUTH_FAILURES_PER_MINUTE: "1",
    });
  });
  afterAll(async () => {
    await tight?.close();
  });

  test("per token: a burst of 3, then 429 with Retry-After", async () => {
    const token = await tight.token("hasty");
    // All at once, so the 1/s refill cannot keep up however slow the machine is.
    const answers = await Promise.all(Array.from({ length: 10 }, () => tight.api.get("/tasks?limit=1", token)));
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(3);
    const limited = answers.find((res) => res.status === 429);
    expectError(limited!, 429, "rate_limited");
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Another token has its own bucket.
    expect((await tight.api.get("/tasks?limit=1", await tight.token("patient"))).status).toBe(200);
  });

  test("failed authentications: a burst of 3, then 429 with Retry-After", async () => {
    const statuses: number[] = [];
    let limited: HttpResult | undefined;
    for (let i = 0; i < 5; i++) {
      const res = await tight.api.get("/tasks", unknownToken());
      statuses.push(res.status);
      if (res.status === 429) limited ??= res;
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    expectError(limited!, 429, "rate_limited");
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // A forged X-Forwarded-For does not buy a fresh allowance (no proxy is trusted here)…
    expect((await tight.api.get("/tasks", unknownToken(), { "x-forwarded-for": "203.0.113.9" })).status).toBe(429);
    // …and a valid token is not refused for what others sent.
    expect((await tight.api.get("/tasks?limit=1", await tight.token("innocent"))).status).toBe(200);
  });
});
