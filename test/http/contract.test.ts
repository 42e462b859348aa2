import { beforeAll, describe, expect, test } from "vitest";
import { endpoints, type Endpoint } from "@/lib/http/endpoints";
import { expectError, expectTask, expectTaskResponse, type HttpFixture, type WireEvent, type WireTask } from "./helpers";
import { contractFixture } from "./contract-fixture";

// docs/contract.md over real HTTP: every endpoint's success shape, against `next start` and
// PostgreSQL (the error table's rows: contract-errors.test.ts). Each test works in a queue of its own.

const contract = contractFixture();
const { newQueue, create, claimedBy, startedBy, current, events } = contract;
let f: HttpFixture;
let amal: string;
let bilal: string;
let watcher: string;
beforeAll(() => {
  ({ f, amal, bilal, watcher } = contract.the);
});

describe("success shapes", () => {
  test("POST /tasks: 201 {task} with every field; GET /tasks/{id} returns the same", async () => {
    const queue = await newQueue("create");
    const res = await f.api.post("/tasks", amal, {
      title: "Review inspection 7", description: "Check the photos", queue, priority: 5, payload: { inspection: 7, tags: ["a"] },
    });
    const task = expectTaskResponse(res, 201);
    expect(task).toMatchObject({
      queue, title: "Review inspection 7", description: "Check the photos", priority: 5,
      payload: { inspection: 7, tags: ["a"] }, status: "queued", owner: null, leaseUntil: null,
      version: 1, failureCount: 0, needsCheck: false,
    });
    expect(task.createdAt).toBe(task.updatedAt);
    expect(await current(task.id)).toEqual(task);

    const bare = await create(queue, "Defaults");
    expect(bare).toMatchObject({ description: "", priority: 0, payload: {} });
    const fallback = expectTaskResponse(await f.api.post("/tasks", amal, { title: "Default queue" }), 201);
    expect(fallback.queue).toBe("default");
  });

  test("GET /tasks: filters and keyset pagination", async () => {
    const queue = await newQueue("list");
    const made: WireTask[] = [];
    for (let i = 0; i < 5; i++) made.push(await create(queue, `Listed ${i}`));
    const seen: WireTask[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await f.api.get(`/tasks?queue=${queue}&limit=2${cursor ? `&cursor=${cursor}` : ""}`, watcher);
      expect(res.status, res.text).toBe(200);
      const page = res.body as { tasks: unknown[]; nextCursor: string | null };
      expect(Object.keys(page).sort()).toEqual(["nextCursor", "tasks"]);
      expect(page.tasks.length).toBeLessThanOrEqual(2);
      seen.push(...page.tasks.map(expectTask));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen.map((t) => t.id)).toEqual(made.map((t) => t.id));
    expect(pages).toBe(3);

    await f.api.post(`/tasks/${made[1]!.id}/claim`, bilal, { version: 1 });
    await f.api.post(`/tasks/${made[3]!.id}/claim`, amal, { version: 1 });
    const claimed = (await f.api.get(`/tasks?queue=${queue}&status=claimed`, amal)).body as { tasks: WireTask[]; nextCursor: null };
    expect(claimed.tasks.map((t) => t.id)).toEqual([made[1]!.id, made[3]!.id]);
    expect(claimed.nextCursor).toBeNull();
    const mine = (await f.api.get(`/tasks?queue=${queue}&owner=me`, bilal)).body as { tasks: WireTask[] };
    expect(mine.tasks.map((t) => t.id)).toEqual([made[1]!.id]);
    const queued = (await f.api.get(`/tasks?queue=${queue}&status=queued&limit=100`, amal)).body as { tasks: WireTask[] };
    expect(queued.tasks.map((t) => t.id)).toEqual([made[0]!.id, made[2]!.id, made[4]!.id]);
  });

  test("GET /tasks/{id}/events: oldest first, paginated with after and limit", async () => {
    const task = await startedBy(amal, await newQueue("events"));
    expectTaskResponse(await f.api.post(`/tasks/${task.id}/heartbeat`, amal, { version: 3, progress: { done: 1 } }));
    expectTaskResponse(await f.api.post(`/tasks/${task.id}/complete`, amal, { version: 3, result: { ok: true } }));
    const all = await events(task.id);
    expect(all.map((e) => e.type)).toEqual(["created", "claimed", "started", "heartbeat", "completed"]);
    expect(all.map((e) => BigInt(e.id))).toEqual(all.map((e) => BigInt(e.id)).sort((a, b) => (a < b ? -1 : 1)));
    expect(all.every((e) => e.taskId === task.id)).toBe(true);
    expect(all[1]).toMatchObject({ actor: { name: "amal", kind: "agent" }, payload: { version: 2 } });
    expect(all[4]!.payload).toMatchObject({ version: 4, result: { ok: true } });

    const first = (await f.api.get(`/tasks/${task.id}/events?limit=2`, amal)).body as { events: WireEvent[]; nextCursor: string | null };
    expect(first.events.map((e) => e.id)).toEqual(all.slice(0, 2).map((e) => e.id));
    expect(first.nextCursor).toBe(all[1]!.id);
    const rest = (await f.api.get(`/tasks/${task.id}/events?after=${first.nextCursor}`, amal)).body as {
      events: WireEvent[]; nextCursor: string | null;
    };
    expect(rest.events.map((e) => e.id)).toEqual(all.slice(2).map((e) => e.id));
    expect(rest.nextCursor).toBeNull();
  });

  test("POST /claims: 200 {task}; 204 with an empty body when nothing is claimable; start:true gives started v2, one event", async () => {
    const queue = await newQueue("claims");
    const a = await create(queue, "first");
    const b = await create(queue, "second");
    const claimed = expectTaskResponse(await f.api.post("/claims", amal, { queue }));
    expect(claimed).toMatchObject({ id: a.id, status: "claimed", version: 2, owner: { name: "amal", kind: "agent" } });
    const started = expectTaskResponse(await f.api.post("/claims", bilal, { queue, start: true }));
    expect(started).toMatchObject({ id: b.id, status: "started", version: 2, owner: { name: "bilal" } });
    expect((await events(b.id)).map((e) => [e.type, e.payload])).toEqual([
      ["created", expect.anything()], ["claimed", expect.objectContaining({ version: 2, status: "started", started: true })],
    ]);

    const empty = await f.api.post("/claims", amal, { queue });
    expect(empty.status).toBe(204);
    expect(empty.text).toBe("");
    expect((await f.api.post("/claims", amal, { queue: await newQueue("never-used") })).status).toBe(204);
  });

  test("claim-next never hands out a task whose lease is still valid", async () => {
    const queue = await newQueue("valid-lease");
    const held = await create(queue, "held, lease valid");
    const lapsing = await create(queue, "lease lapses");
    expect(expectTaskResponse(await f.api.post("/claims", amal, { queue, leaseSeconds: 30 })).id).toBe(held.id);
    expect(expectTaskResponse(await f.api.post("/claims", amal, { queue, leaseSeconds: 30 })).id).toBe(lapsing.id);
    await f.lapseLease(lapsing.id);

    const reclaimed = expectTaskResponse(await f.api.post("/claims", bilal, { queue }));
    expect(reclaimed).toMatchObject({ id: lapsing.id, version: 4, owner: { name: "bilal" } });
    expect((await f.api.post("/claims", bilal, { queue })).status).toBe(204);
    expect(await current(held.id)).toMatchObject({ status: "claimed", version: 2, owner: { name: "amal" } });
  });

  test("POST /claims/batch: limit 1..100, {tasks} claimed together", async () => {
    const queue = await newQueue("batch");
    const made = [await create(queue), await create(queue), await create(queue)];
    for (const limit of [0, 101, 1.5, "2"]) {
      expect(expectError(await f.api.post("/claims/batch", amal, { queue, limit }), 400, "invalid_request").field).toBe("limit");
    }
    expectError(await f.api.post("/claims/batch", amal, { queue }), 400, "invalid_request");

    const two = await f.api.post("/claims/batch", amal, { queue, limit: 2, start: true });
    expect(two.status, two.text).toBe(200);
    expect(Object.keys(two.body as object)).toEqual(["tasks"]);
    const tasks = (two.body as { tasks: unknown[] }).tasks.map(expectTask);
    expect(tasks.map((t) => [t.id, t.status, t.version])).toEqual([[made[0]!.id, "started", 2], [made[1]!.id, "started", 2]]);
    const rest = (await f.api.post("/claims/batch", bilal, { queue, limit: 100 })).body as { tasks: WireTask[] };
    expect(rest.tasks.map((t) => t.id)).toEqual([made[2]!.id]);
    const none = await f.api.post("/claims/batch", bilal, { queue, limit: 1 });
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ tasks: [] });
  });

  test("the owner's calls: heartbeat keeps the version, side effect, release, complete", async () => {
    const queue = await newQueue("lifecycle");
    const task = await startedBy(amal, queue);
    // Pull the lease in so the renewal visibly moves it, whatever the request latency.
    await f.database.client`UPDATE tasks SET lease_until = now() + interval '10 seconds' WHERE id = ${task.id}::bigint`;
    const before = await current(task.id);
    const renewed = expectTaskResponse(await f.api.post(`/tasks/${task.id}/heartbeat`, amal, { version: 3, progress: 0.5 }));
    expect(renewed.version).toBe(3);
    expect(Date.parse(renewed.leaseUntil!)).toBeGreaterThan(Date.parse(before.leaseUntil!) + 60_000);

    const marked = expectTaskResponse(await f.api.post(`/tasks/${task.id}/side-effects`, amal, { version: 3, description: "called the API" }));
    expect(marked).toMatchObject({ status: "started", version: 3 });
    const released = expectTaskResponse(await f.api.post(`/tasks/${task.id}/release`, amal, { version: 3 }));
    expect(released).toMatchObject({ status: "queued", owner: null, leaseUntil: null, version: 4, needsCheck: true });

    const other = await startedBy(bilal, queue);
    const done = expectTaskResponse(await f.api.post(`/tasks/${other.id}/complete`, bilal, { version: 3, result: "fine" }));
    expect(done).toMatchObject({ status: "done", version: 4, leaseUntil: null });
    expect((await events(task.id)).map((e) => e.type)).toEqual(["created", "claimed", "started", "heartbeat", "side_effect", "released"]);
  });

  test("checkpoints: 201 {checkpoint, task} by the holder, the version kept; GET lists them; a stranger's is 409", async () => {
    const queue = await newQueue("checkpoints");
    const task = await startedBy(amal, queue);
    const res = await f.api.post(`/tasks/${task.id}/checkpoints`, amal, { version: 3, step: 1, state: { cursor: "a" } });
    expect(res.status, res.text).toBe(201);
    const body = res.body as { checkpoint: Record<string, unknown>; task: unknown };
    expect(Object.keys(body).sort()).toEqual(["checkpoint", "task"]);
    expect(expectTask(body.task)).toMatchObject({ version: 3, checkpoint: body.checkpoint });
    expect(body.checkpoint).toMatchObject({ step: 1, state: { cursor: "a" }, attempt: 1 });
    const listed = await f.api.get(`/tasks/${task.id}/checkpoints`, watcher);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ checkpoints: [body.checkpoint] });
    expectError(await f.api.post(`/tasks/${task.id}/checkpoints`, bilal, { version: 3, step: 2 }), 409, "not_owner");
    expect(expectError(await f.api.post(`/tasks/${task.id}/checkpoints`, amal, { version: 3, step: 0 }), 400, "invalid_request").field).toBe("step");
    const big = { version: 3, step: 2, state: "x".repeat(70_000) };
    expect(expectError(await f.api.post(`/tasks/${task.id}/checkpoints`, amal, big), 400, "invalid_request").field).toBe("state");
    expect((await events(task.id)).map((e) => e.type)).toEqual(["created", "claimed", "started", "checkpointed"]);
  });

  test("unread input and the lease: GET /tasks/{id}/lease, 409 unread_human_input until POST /tasks/{id}/ack, 409 no_progress", async () => {
    const queue = await newQueue("input");
    const task = await startedBy(amal, queue);
    const said = await f.api.post(`/tasks/${task.id}/comments`, bilal, { body: "Use the credit note" });
    expect(said.status, said.text).toBe(201);
    const eventId = (said.body as { event: { id: string } }).event.id;
    const beat = expectTaskResponse(await f.api.post(`/tasks/${task.id}/heartbeat`, amal, { version: 3 }));
    expect(beat.unread).toMatchObject([{ eventId, by: { name: "bilal" }, text: "Use the credit note" }]);
    const lease = await f.api.get(`/tasks/${task.id}/lease`, bilal);
    expect(lease.status, lease.text).toBe(200);
    expect(Object.keys(lease.body as object).sort()).toEqual([
      "attempt", "holder", "lastProgressAt", "leaseUntil", "maxRenewalsWithoutProgress", "question", "reasons", "renewals", "renewalsWithoutProgress", "state", "unread",
    ]);
    expect(lease.body).toMatchObject({ state: "held", holder: { name: "amal" }, attempt: 1, renewals: 1, reasons: ["held", "unread_input"] });
    const refused = expectError(await f.api.post(`/tasks/${task.id}/complete`, amal, { version: 3 }), 409, "unread_human_input");
    expect(refused.message).toContain(eventId);
    expect(expectError(await f.api.post(`/tasks/${task.id}/ack`, amal, { version: 3, eventId: "abc" }), 400, "invalid_request").field).toBe("eventId");
    const acked = expectTaskResponse(await f.api.post(`/tasks/${task.id}/ack`, amal, { version: 3, eventId }));
    expect(acked.unread).toEqual([]);
    expectTaskResponse(await f.api.post(`/tasks/${task.id}/complete`, amal, { version: 3 }));

    const strict = await newQueue("strict");
    await f.database.client`UPDATE queues SET max_renewals_without_progress = 1 WHERE name = ${strict}`;
    const stalled = await startedBy(amal, strict);
    expectTaskResponse(await f.api.post(`/tasks/${stalled.id}/heartbeat`, amal, { version: 3 }));
    const stopped = expectError(await f.api.post(`/tasks/${stalled.id}/heartbeat`, amal, { version: 3 }), 409, "no_progress");
    expect(stopped.task).toMatchObject({ status: "queued", failureCount: 1 });
  });

  test("fail: back to queued twice, escalated on the third strike", async () => {
    let task = await create(await newQueue("fail"));
    const seen: [string, number][] = [];
    for (let strike = 1; strike <= 3; strike++) {
      task = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, amal, { version: task.version }));
      task = expectTaskResponse(await f.api.post(`/tasks/${task.id}/fail`, amal, { version: task.version, reason: `strike ${strike}` }));
      seen.push([task.status, task.failureCount]);
      expect(task.owner).toBeNull();
    }
    expect(seen).toEqual([["queued", 1], ["queued", 2], ["escalated", 3]]);
    expect(task.version).toBe(7);
    const types = (await events(task.id)).map((e) => e.type);
    expect(types.filter((t) => t === "failed")).toHaveLength(3);
    expect(types.slice(-2)).toEqual(["failed", "escalated"]);
  });

  test("leaseSeconds: 4 and 3601 are refused (no clamp); 5 and 3600 are honoured", async () => {
    const queue = await newQueue("lease-bounds");
    await create(queue);
    await create(queue);
    for (const leaseSeconds of [4, 3601, 0, -5, 60.5]) {
      const error = expectError(await f.api.post("/claims", amal, { queue, leaseSeconds }), 400, "invalid_request");
      expect(error.field).toBe("leaseSeconds");
      expectError(await f.api.post("/claims/batch", amal, { queue, leaseSeconds, limit: 1 }), 400, "invalid_request");
    }
    for (const leaseSeconds of [5, 3600]) {
      const task = expectTaskResponse(await f.api.post("/claims", amal, { queue, leaseSeconds }));
      expect(Date.parse(task.leaseUntil!) - Date.parse(task.updatedAt)).toBe(leaseSeconds * 1000);
    }
  });

  test("a retried owner call that already took effect: 200, the current task, no second event", async () => {
    const queue = await newQueue("retry");
    const claimed = await claimedBy(amal, queue);
    const again = async (verb: string, body: object) => {
      const first = expectTaskResponse(await f.api.post(`/tasks/${claimed.id}/${verb}`, amal, body));
      const count = await f.eventCount(claimed.id);
      const second = expectTaskResponse(await f.api.post(`/tasks/${claimed.id}/${verb}`, amal, body));
      expect(second, verb).toEqual(first);
      expect(await f.eventCount(claimed.id), verb).toBe(count);
      return second;
    };
    expect((await again("claim", { version: 1 })).version).toBe(2);
    expect((await again("start", { version: 2 })).status).toBe("started");
    expect(await again("complete", { version: 3 })).toMatchObject({ status: "done", version: 4 });

    const other = await claimedBy(amal, queue);
    const released = expectTaskResponse(await f.api.post(`/tasks/${other.id}/release`, amal, { version: 2 }));
    const count = await f.eventCount(other.id);
    expect(expectTaskResponse(await f.api.post(`/tasks/${other.id}/release`, amal, { version: 2 }))).toEqual(released);
    const failing = expectTaskResponse(await f.api.post(`/tasks/${other.id}/claim`, amal, { version: 3 }));
    const failed = expectTaskResponse(await f.api.post(`/tasks/${other.id}/fail`, amal, { version: failing.version, reason: "x" }));
    const afterFail = await f.eventCount(other.id);
    expect(afterFail).toBe(count + 2);
    expect(expectTaskResponse(await f.api.post(`/tasks/${other.id}/fail`, amal, { version: failing.version, reason: "x" }))).toEqual(failed);
    expect(await f.eventCount(other.id)).toBe(afterFail);
  });

  test("GET /openapi.json: an OpenAPI 3.1 document of every endpoint, without a token", async () => {
    const res = await f.api.get("/openapi.json");
    expect(res.status, res.text).toBe(200);
    const doc = res.body as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toMatch(/^3\.1\./);
    for (const endpoint of Object.values(endpoints as Record<string, Endpoint>)) {
      const path = Object.keys(doc.paths).find((p) => p === endpoint.path || p === `/api/v1${endpoint.path}`);
      expect(path, endpoint.path).toBeDefined();
      expect(Object.keys(doc.paths[path!]!), endpoint.path).toContain(endpoint.method.toLowerCase());
    }
  });

  test("POST /tasks/{id}/release-reservations: 200 {task} still parked, reserving nothing; not parked: 409; an agent: 403", async () => {
    const queue = await newQueue("release-reservations");
    const boss = await f.token(`boss-${queue}`, "supervisor");
    const made = await create(queue, "Reserves and asks", { reserves: [{ resource: `${queue}/**`, mode: "exclusive" }] });
    expectTaskResponse(await f.api.post(`/tasks/${made.id}/claim`, amal, { version: 1 }));
    const started = expectTaskResponse(await f.api.post(`/tasks/${made.id}/start`, amal, { version: 2 }));
    const notParked = await f.api.post(`/tasks/${made.id}/release-reservations`, boss, { version: started.version });
    expectError(notParked, 409, "invalid_transition");
    const asked = await f.api.post(`/tasks/${made.id}/questions`, amal, { version: started.version, question: "Go on?" });
    expect(asked.status, asked.text).toBe(201);
    const parked = await current(made.id);
    expectError(await f.api.post(`/tasks/${made.id}/release-reservations`, amal, { version: parked.version }), 403, "forbidden");
    const released = expectTaskResponse(await f.api.post(`/tasks/${made.id}/release-reservations`, boss, { version: parked.version, reason: "blocking the team" }));
    expect(released).toMatchObject({ id: made.id, status: "awaiting_input", reserves: [], version: parked.version + 1 });
    expect((await events(made.id)).at(-1)).toMatchObject({ type: "edited", payload: { changes: { reserves: { to: [] } }, reason: "blocking the team" } });
  });

  test("GET /health: 200 {ok:true, db:\"up\"} without a token", async () => {
    const res = await f.api.get("/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, db: "up" });
  });
});
