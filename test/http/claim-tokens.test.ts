import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { expectError, expectTaskResponse, httpFixture, type HttpFixture, type HttpResult, type WireTask } from "./helpers";

// Claim-scoped tokens over real HTTP (docs/contract.md#claim-scoped-tokens, docs/security.md "Claim tokens"): minted by
// the owner, narrowing only, acting as the owner on one task and one attempt, dead once the
// attempt ends — and every refusal writes nothing.

let f: HttpFixture;
let amal: string;
let bilal: string;
let boss: string;
let watcher: string;
beforeAll(async () => {
  f = await httpFixture();
  amal = await f.token("amal");
  bilal = await f.token("bilal");
  boss = await f.token("boss", "supervisor");
  watcher = await f.token("watcher", "observer");
});
afterAll(async () => {
  await f?.close();
});

interface Minted { claimToken: string; ops: string[]; taskId: string; attempt: number }

function minted(res: HttpResult): Minted {
  expect(res.status, res.text).toBe(201);
  const body = res.body as Minted;
  expect(Object.keys(body).sort()).toEqual(["attempt", "claimToken", "ops", "taskId"]);
  expect(body.claimToken).toMatch(/^cbc_[A-Za-z0-9_-]{43}$/);
  return body;
}

const sql = () => f.database.client;
/** What a refusal must leave as it was: the log, the task rows, the claim tokens. */
async function snapshot() {
  const [row] = await sql()<{ events: number; tasks: string; tokens: number }[]>`
    SELECT (SELECT count(*)::int FROM task_events) AS events,
           (SELECT string_agg(id || ':' || version || ':' || status || ':' || coalesce(lease_until::text, '') || ':' || intended_effects, ',' ORDER BY id) FROM tasks) AS tasks,
           (SELECT count(*)::int FROM claim_tokens) AS tokens`;
  return row!;
}

let queues = 0;
/** A task amal holds, started, in a queue of its own. */
async function held(): Promise<WireTask> {
  const queue = await f.queue(`claims-${++queues}`);
  expectTaskResponse(await f.api.post("/tasks", amal, { title: "Charge order", queue }), 201);
  return expectTaskResponse(await f.api.post("/claims", amal, { queue, start: true }));
}

describe("minting", () => {
  test("the owner mints: all ops by default, bound to the current attempt, stored only as its hash, never in the log or the server's output", async () => {
    const task = await held();
    const token = minted(await f.api.post(`/tasks/${task.id}/claim-tokens`, amal, { version: task.version }));
    expect(token).toMatchObject({ taskId: task.id, attempt: task.attempt, ops: ["read", "progress", "effects", "complete", "fail", "release", "comment", "ask"] });
    const rows = await sql()<{ token_hash: string; attempt: number; ops: string[] }[]>`
      SELECT token_hash, attempt, ops FROM claim_tokens WHERE task_id = ${task.id}::bigint`;
    expect(rows).toEqual([{ token_hash: createHash("sha256").update(token.claimToken).digest("hex"), attempt: task.attempt, ops: token.ops }]);

    // The token works as amal on its task, through the whole attempt.
    const read = await f.api.get(`/tasks/${task.id}`, token.claimToken);
    expect(read.status, read.text).toBe(200);
    const beat = expectTaskResponse(await f.api.post(`/tasks/${task.id}/heartbeat`, token.claimToken, { version: task.version, progress: { step: 1 } }));
    expect(beat.owner?.name).toBe("amal");
    expect(beat.fence).toBe(task.fence);
    const effect = await f.api.post(`/tasks/${task.id}/effects`, token.claimToken, { version: task.version, name: "charge", key: "order-1" });
    expect(effect.status, effect.text).toBe(201);
    const comment = await f.api.post(`/tasks/${task.id}/comments`, token.claimToken, { body: "working on it" });
    expect(comment.status, comment.text).toBe(201);
    const done = await f.api.post(`/tasks/${task.id}/complete`, token.claimToken, { version: task.version, result: { ok: true } });
    expect(done.status, done.text).toBe(200);

    const events = await sql()<{ text: string }[]>`SELECT payload::text AS text FROM task_events WHERE task_id = ${task.id}::bigint`;
    for (const event of events) expect(event.text).not.toContain(token.claimToken.slice(4));
    expect(f.server.output()).not.toContain(token.claimToken.slice(4));
  });

  test("refused, writing nothing: not the owner (409), an observer (403), a task nobody holds (409), a stale version (409), ops adding to a claim token's (400)", async () => {
    const task = await held();
    const queued = expectTaskResponse(await f.api.post("/tasks", amal, { title: "Nobody holds me", queue: await f.queue("claims-queued") }), 201);
    const before = await snapshot();
    expectError(await f.api.post(`/tasks/${task.id}/claim-tokens`, bilal, { version: task.version }), 409, "not_owner");
    expectError(await f.api.post(`/tasks/${task.id}/claim-tokens`, watcher, { version: task.version }), 403, "forbidden");
    expectError(await f.api.post(`/tasks/${queued.id}/claim-tokens`, amal, { version: queued.version }), 409, "invalid_transition");
    expectError(await f.api.post(`/tasks/${task.id}/claim-tokens`, amal, { version: task.version - 1 }), 409, "version_conflict");
    expect(expectError(await f.api.post(`/tasks/${task.id}/claim-tokens`, amal, { version: task.version, ops: ["read", "supervise"] }), 400, "invalid_request").field).toBe("ops.1");
    expect(expectError(await f.api.post(`/tasks/${task.id}/claim-tokens`, amal, { version: task.version, ops: [] }), 400, "invalid_request").field).toBe("ops");
    expect(await snapshot()).toEqual(before);

    const narrow = minted(await f.api.post(`/tasks/${task.id}/claim-tokens`, amal, { version: task.version, ops: ["read", "progress"] }));
    const after = await snapshot();
    const widened = expectError(await f.api.post(`/tasks/${task.id}/claim-tokens`, narrow.claimToken, { version: task.version, ops: ["read", "complete"] }), 400, "invalid_request");
    expect(widened.field).toBe("ops");
    expect(widened.message).toContain("complete");
    expect(await snapshot()).toEqual(after);
    // Narrowing itself: fewer ops, or by default the same ones — never more.
    expect(minted(await f.api.post(`/tasks/${task.id}/claim-tokens`, narrow.claimToken, { version: task.version, ops: ["read"] })).ops).toEqual(["read"]);
    expect(minted(await f.api.post(`/tasks/${task.id}/claim-tokens`, narrow.claimToken, { version: task.version })).ops).toEqual(["read", "progress"]);
  });
});

describe("where a claim token may go", () => {
  test("another task or any other route: 403 wrong_task; an op it was not given: 403 op_not_allowed — nothing written", async () => {
    const task = await held();
    const other = await held();
    const reader = minted(await f.api.post(`/tasks/${task.id}/claim-tokens`, amal, { version: task.version, ops: ["read"] }));
    const before = await snapshot();
    const v = task.version;
    for (const res of [
      await f.api.get(`/tasks/${other.id}`, reader.claimToken),
      await f.api.post(`/tasks/${other.id}/heartbeat`, reader.claimToken, { version: other.version }),
      await f.api.post(`/tasks/${other.id}/claim-tokens`, reader.claimToken, { version: other.version }),
      await f.api.get("/tasks", reader.claimToken),
      await f.api.post("/tasks", reader.claimToken, { title: "sneaky", queue: "default" }),
      await f.api.post("/claims", reader.claimToken, { queue: "default" }),
      await f.api.post("/fences/verify", reader.claimToken, { fence: task.fence }),
      await f.api.post(`/tasks/${task.id}/claim`, reader.claimToken, { version: v }),
      await f.api.request("PATCH", `/tasks/${task.id}`, { token: reader.claimToken, json: { version: v, title: "renamed" } }),
      await f.api.post(`/tasks/${task.id}/force-release`, reader.claimToken, { version: v }),
      await f.api.post("/completions", reader.claimToken, { tasks: [{ id: task.id, version: v }] }),
    ]) expectError(res, 403, "wrong_task");
    for (const [verb, body] of [
      ["heartbeat", { version: v }], ["start", { version: v }], ["effects", { version: v, name: "x" }], ["side-effects", { version: v, description: "x" }],
      ["complete", { version: v }], ["fail", { version: v, reason: "x" }], ["release", { version: v }], ["comments", { body: "x" }],
    ] as const) {
      expectError(await f.api.post(`/tasks/${task.id}/${verb}`, reader.claimToken, body), 403, "op_not_allowed");
    }
    expect(await snapshot()).toEqual(before);
    // What it was given, it may do.
    for (const path of [`/tasks/${task.id}`, `/tasks/${task.id}/events`, `/tasks/${task.id}/effects`, `/tasks/${task.id}/readiness`]) {
      const res = await f.api.get(path, reader.claimToken);
      expect(res.status, `${path}: ${res.text}`).toBe(200);
    }
    // A completion that would claim the next task takes another task.
    const all = minted(await f.api.post(`/tasks/${task.id}/claim-tokens`, amal, { version: v }));
    const mid = await snapshot();
    expectError(await f.api.post(`/tasks/${task.id}/complete`, all.claimToken, { version: v, next: { queue: "default" } }), 403, "wrong_task");
    expect(await snapshot()).toEqual(mid);
  });

  test("its agent token revoked: 401 unauthorized, like the agent's own", async () => {
    const carla = await f.token("carla");
    const queue = await f.queue("claims-revoked");
    expectTaskResponse(await f.api.post("/tasks", carla, { title: "Carla's", queue }), 201);
    const task = expectTaskResponse(await f.api.post("/claims", carla, { queue, start: true }));
    const token = minted(await f.api.post(`/tasks/${task.id}/claim-tokens`, carla, { version: task.version }));
    await sql()`UPDATE agent_tokens SET revoked_at = now() WHERE name = 'carla'`;
    expectError(await f.api.get(`/tasks/${task.id}`, token.claimToken), 401, "unauthorized");
    expectError(await f.api.get(`/tasks/${task.id}`, "cbc_" + "x".repeat(43)), 401, "unauthorized");
  });
});

describe("dead when the attempt ends", () => {
  const ended = async (token: Minted, task: WireTask) => {
    const before = await snapshot();
    const res = expectError(await f.api.get(`/tasks/${task.id}`, token.claimToken), 401, "claim_ended");
    expect(res.message).toContain(`task ${task.id}`);
    expectError(await f.api.post(`/tasks/${task.id}/heartbeat`, token.claimToken, { version: task.version }), 401, "claim_ended");
    expectError(await f.api.get("/tasks", token.claimToken), 401, "claim_ended");
    expect(await snapshot()).toEqual(before);
  };

  test.each([
    ["complete", (t: WireTask) => f.api.post(`/tasks/${t.id}/complete`, amal, { version: t.version })],
    ["fail", (t: WireTask) => f.api.post(`/tasks/${t.id}/fail`, amal, { version: t.version, reason: "broke" })],
    ["release", (t: WireTask) => f.api.post(`/tasks/${t.id}/release`, amal, { version: t.version })],
    ["force-release", (t: WireTask) => f.api.post(`/tasks/${t.id}/force-release`, boss, { version: t.version, reason: "stuck" })],
  ])("after %s: 401 claim_ended", async (_name, end) => {
    const task = await held();
    const token = minted(await f.api.post(`/tasks/${task.id}/claim-tokens`, amal, { version: task.version }));
    const res = await end(task);
    expect(res.status, res.text).toBe(200);
    await ended(token, task);
  });

  test("after a lapse and a new holding — by the same agent too: the new attempt's token is another", async () => {
    const task = await held();
    const token = minted(await f.api.post(`/tasks/${task.id}/claim-tokens`, amal, { version: task.version }));
    await f.lapseLease(task.id);
    // Lapsed but not yet taken: still its attempt (the engine answers lease_expired), not claim_ended.
    expectError(await f.api.post(`/tasks/${task.id}/heartbeat`, token.claimToken, { version: task.version }), 409, "lease_expired");
    const again = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, amal, { version: task.version }));
    expect(again.attempt).toBe(task.attempt + 1);
    await ended(token, again);
    const fresh = minted(await f.api.post(`/tasks/${task.id}/claim-tokens`, amal, { version: again.version }));
    expect(fresh.attempt).toBe(again.attempt);
    expect((await f.api.get(`/tasks/${task.id}`, fresh.claimToken)).status).toBe(200);
  });
});
