import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startPaymentStub, type PaymentStub } from "@/docs/examples/payment-stub";
import { expectError, expectTaskResponse, httpFixture, type HttpFixture } from "./helpers";

// Issue 22, item 1 over real HTTP: the fence in every owner response and the Claimboard-Fence
// header, POST /fences/verify, the lock delay's readiness, and docs/fences.md's worked
// example — a payment service that refuses a stale fence.

let f: HttpFixture;
let amal: string;
let bilal: string;
let watcher: string;
let boss: string;
beforeAll(async () => {
  f = await httpFixture();
  amal = await f.token("amal");
  bilal = await f.token("bilal");
  watcher = await f.token("watcher", "observer");
  boss = await f.token("boss", "supervisor");
});
afterAll(async () => {
  await f?.close();
});

const create = async (queue: string, title = "A task") => expectTaskResponse(await f.api.post("/tasks", amal, { title, queue: await f.queue(queue) }), 201);

describe("fences on owner responses", () => {
  test("claim, start, heartbeat, side effect, release: the task's fence and the Claimboard-Fence header, the same attempt's", async () => {
    const task = await create("fenced");
    expect(task.attempt).toBe(0);
    expect(task.fence).toBeNull();
    const calls = [
      await f.api.post(`/tasks/${task.id}/claim`, amal, { version: 1 }),
    ];
    const claimed = expectTaskResponse(calls[0]!);
    calls.push(await f.api.post(`/tasks/${task.id}/start`, amal, { version: claimed.version }));
    const started = expectTaskResponse(calls[1]!);
    calls.push(await f.api.post(`/tasks/${task.id}/heartbeat`, amal, { version: started.version }));
    calls.push(await f.api.post(`/tasks/${task.id}/side-effects`, amal, { version: started.version, description: "emailed" }));
    calls.push(await f.api.post(`/tasks/${task.id}/release`, amal, { version: started.version }));
    const fence = claimed.fence!;
    expect(fence).toMatch(/^cbf_/);
    for (const res of calls) {
      expect(res.headers.get("claimboard-fence")).toBe(fence);
      expect(expectTaskResponse(res)).toMatchObject({ attempt: 1, fence });
    }
    // Readers other than the holder never see it.
    const held = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, bilal, { version: expectTaskResponse(calls[4]!).version }));
    expect(held.attempt).toBe(2);
    expect(expectTaskResponse(await f.api.get(`/tasks/${task.id}`, bilal)).fence).toBe(held.fence);
    expect(expectTaskResponse(await f.api.get(`/tasks/${task.id}`, amal)).fence).toBeNull();
    const listed = (await f.api.get(`/tasks?queue=fenced`, bilal)).body as { tasks: { fence: string | null }[] };
    expect(listed.tasks.every((t) => t.fence === null)).toBe(true);
  });

  test("claim-next, batch and complete + next: each task its own fence", async () => {
    const queue = "loop-fences";
    await create(queue, "one");
    await create(queue, "two");
    await create(queue, "three");
    const first = await f.api.post("/claims", amal, { queue, start: true });
    const one = expectTaskResponse(first);
    expect(first.headers.get("claimboard-fence")).toBe(one.fence);
    const done = await f.api.post(`/tasks/${one.id}/complete`, amal, { version: one.version, next: { queue, start: true } });
    expect(done.status, done.text).toBe(200);
    const { task, next } = done.body as { task: { fence: string }; next: { id: string; fence: string; attempt: number } };
    expect(task.fence).toBe(one.fence);
    expect(done.headers.get("claimboard-fence")).toBe(one.fence);
    expect(next.fence).toMatch(new RegExp(`^cbf_${next.id}_1_`));
    const batch = (await f.api.post("/claims/batch", bilal, { queue, limit: 5 })).body as { tasks: { id: string; fence: string }[] };
    expect(batch.tasks).toHaveLength(1);
    expect(batch.tasks[0]!.fence).toMatch(new RegExp(`^cbf_${batch.tasks[0]!.id}_1_`));
  });
});

describe("attempts over HTTP", () => {
  test("release, lapse, force-release and a requeue after escalation: each new holding a new attempt, never one twice; every older fence superseded", async () => {
    await f.queueSettings("numbered", { maxFailures: 1 });
    const task = await create("numbered");
    const held: { attempt: number; fence: string }[] = [];
    const take = <T extends { attempt: number; fence: string | null }>(t: T) => (held.push({ attempt: t.attempt, fence: t.fence! }), t);
    // 1: claimed and released.
    let t = take(expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, amal, { version: task.version })));
    t = expectTaskResponse(await f.api.post(`/tasks/${task.id}/release`, amal, { version: t.version }));
    // 2: claimed next; its lease lapses. 3: taken over by the next claim.
    t = take(expectTaskResponse(await f.api.post("/claims", amal, { queue: "numbered" })));
    await f.lapseLease(task.id);
    t = take(expectTaskResponse(await f.api.post("/claims", bilal, { queue: "numbered" })));
    // 3 force-released by a supervisor; 4: claimed again.
    t = expectTaskResponse(await f.api.post(`/tasks/${task.id}/force-release`, boss, { version: t.version, reason: "stuck" }));
    t = take(expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, amal, { version: t.version })));
    // 4 fails on the queue's last strike (escalated); a supervisor requeues; 5: claimed again.
    t = expectTaskResponse(await f.api.post(`/tasks/${task.id}/fail`, amal, { version: t.version, reason: "broken" }));
    expect(t.status).toBe("escalated");
    t = expectTaskResponse(await f.api.post(`/tasks/${task.id}/requeue`, boss, { version: t.version }));
    expect(t.attempt).toBe(4); // a requeue starts no holding
    take(expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, bilal, { version: t.version })));

    expect(held.map((h) => h.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(held.map((h) => h.fence)).size).toBe(5);
    for (const old of held.slice(0, -1)) {
      expect((await f.api.post("/fences/verify", watcher, { fence: old.fence })).body).toMatchObject({ current: false, reason: "superseded", currentAttempt: 5 });
    }
    expect((await f.api.post("/fences/verify", watcher, { fence: held.at(-1)!.fence })).body).toMatchObject({ current: true, attempt: 5 });
  });
});

describe("POST /fences/verify", () => {
  test("any token verifies; superseded after a lapse and a takeover; forged or truncated: 400 naming fence, nothing written", async () => {
    const task = await create("verify");
    const a = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, amal, { version: 1 }));
    const current = await f.api.post("/fences/verify", watcher, { fence: a.fence });
    expect(current.status, current.text).toBe(200);
    expect(current.body).toEqual({ current: true, taskId: task.id, attempt: 1, currentAttempt: 1, status: "claimed", reason: "current" });
    await f.lapseLease(task.id);
    expect((await f.api.post("/fences/verify", watcher, { fence: a.fence })).body).toMatchObject({ current: false, reason: "lapsed" });
    const b = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, bilal, { version: a.version }));
    expect((await f.api.post("/fences/verify", watcher, { fence: a.fence })).body).toMatchObject({ current: false, reason: "superseded", currentAttempt: 2 });
    expect((await f.api.post("/fences/verify", watcher, { fence: b.fence })).body).toMatchObject({ current: true });

    const events = await f.eventCount();
    for (const fence of [a.fence!.slice(0, -1), a.fence!.replace("_1_", "_2_"), "cbf_1_1_x", 42, "x".repeat(500)]) {
      const refused = expectError(await f.api.post("/fences/verify", watcher, { fence }), 400, "invalid_request");
      expect(refused.field).toBe("fence");
    }
    expect(expectError(await f.api.post("/fences/verify", null, { fence: b.fence }), 401, "unauthorized")).toBeTruthy();
    expect(await f.eventCount()).toBe(events);
  });

  test("lockDelaySeconds: readiness lock_delay with claimableAt while the lapsed task is held back", async () => {
    await f.queueSettings("delayed", { lockDelaySeconds: 600 });
    const task = await create("delayed");
    const a = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, amal, { version: 1 }));
    await f.lapseLease(task.id);
    const readiness = await f.api.get(`/tasks/${task.id}/readiness`, bilal);
    expect(readiness.status, readiness.text).toBe(200);
    const body = readiness.body as { claimable: boolean; reasons: { code: string }[]; claimableAt: string };
    expect(body.claimable).toBe(false);
    expect(body.reasons.map((r) => r.code)).toEqual(["lock_delay"]);
    const [row] = await f.database.client<{ ms: string }[]>`SELECT floor(extract(epoch FROM lease_until) * 1000)::text AS ms FROM tasks WHERE id = ${task.id}::bigint`;
    expect(Date.parse(body.claimableAt) - Number(row!.ms)).toBe(600_000); // exactly the delay after the lapse
    const refused = await f.api.post(`/tasks/${task.id}/claim`, bilal, { version: a.version });
    expect(refused).toMatchObject({ status: 409, body: { error: { code: "not_ready", message: expect.stringMatching(/lock delay/) } } });
    expect((await f.api.post("/claims", bilal, { queue: "delayed" })).status).toBe(204);
    // The database clock is the server's: a lapse 595 s ago is still held back, 600 s ago it is not.
    await f.database.client`UPDATE tasks SET lease_until = now() - interval '595 seconds' WHERE id = ${task.id}::bigint`;
    expect((await f.api.post("/claims", bilal, { queue: "delayed" })).status).toBe(204);
    await f.database.client`UPDATE tasks SET lease_until = now() - interval '600 seconds' WHERE id = ${task.id}::bigint`;
    expect(expectTaskResponse(await f.api.post("/claims", bilal, { queue: "delayed" }))).toMatchObject({ id: task.id, attempt: 2, owner: { name: "bilal" } });
  });
});

describe("the worked example (docs/fences.md): a payment service that refuses a stale fence", () => {
  let stub: PaymentStub;
  beforeAll(async () => {
    stub = await startPaymentStub(f.server.url, watcher);
  });
  afterAll(async () => {
    await stub?.close();
  });

  const charge = (fence: string | null | undefined, key: string) =>
    fetch(`${stub.url}/charges`, {
      method: "POST",
      headers: { "Claimboard-Fence": fence ?? "", "Idempotency-Key": key, "Content-Type": "application/json" },
      body: JSON.stringify({ amount: 1200 }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

  test("A charges while it holds the task; after its lease lapses and B takes over, A's charge is refused and B's replays the first", async () => {
    const task = await create("payments", "Charge order 7");
    const key = `task-${task.id}:charge`;
    const a = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, amal, { version: 1 }));
    expect(await charge(a.fence, key)).toMatchObject({ status: 201, body: { replayed: false, charge: { attempt: 1 } } });

    await f.lapseLease(task.id); // A froze; its lease ran out
    const b = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, bilal, { version: a.version }));
    // A wakes and retries its charge with its old fence: refused, nothing charged.
    expect(await charge(a.fence, `${key}:retry`)).toMatchObject({ status: 409, body: { error: "stale_fence", reason: "superseded" } });
    // B, not knowing whether A's charge went through, sends the same key: the first charge, not a second.
    expect(await charge(b.fence, key)).toMatchObject({ status: 200, body: { replayed: true, charge: { id: "ch_1" } } });
    expect(await charge("cbf_1_1_forged", key)).toMatchObject({ status: 400 });
    expect(stub.charges).toHaveLength(1);
  });
});
