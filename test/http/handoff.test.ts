import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  expectError, expectEvent, expectTaskResponse, httpFixture, type HttpFixture, type WireEvent, type WireTask,
} from "./helpers";

// Issue 12 over real HTTP: who may claim, hand-offs, progress, the attempt ceiling and the
// Claimboard-Instance header, against `next start` and PostgreSQL. Time passes by fixture
// writes (lease_until, claimed_at): the server compares with the database clock.

let f: HttpFixture;
let amal: string;
let bilal: string;
beforeAll(async () => {
  f = await httpFixture();
  amal = await f.token("amal");
  bilal = await f.token("bilal");
});
afterAll(async () => {
  await f?.close();
});

/** A task in `queue` (made first when new: queues exist only on purpose). */
const create = async (queue: string, title = "A task") => expectTaskResponse(await f.api.post("/tasks", amal, { title, queue: await f.queue(queue) }), 201);
async function history(id: string): Promise<WireEvent[]> {
  const res = await f.api.get(`/tasks/${id}/events?limit=100`, amal);
  expect(res.status, res.text).toBe(200);
  return (res.body as { events: unknown[] }).events.map(expectEvent);
}

describe("claimants", () => {
  test("agents are refused on a people queue: targeted, next and batch, lapsed or not — 403 naming the rule", async () => {
    await f.queueSettings("errands", { claimants: "people" });
    const task = await create("errands", "Email the landlord");
    const answers = [
      await f.api.post(`/tasks/${task.id}/claim`, amal, { version: 1 }),
      await f.api.post("/claims", amal, { queue: "errands" }),
      await f.api.post("/claims/batch", amal, { queue: "errands", limit: 10 }),
    ];
    for (const res of answers) expect(expectError(res, 403, "forbidden").message).toMatch(/errands.*people only.*claimants: people/);
    // An agents queue takes them.
    await f.queueSettings("crawl", { claimants: "agents" });
    const crawl = await create("crawl");
    expect(expectTaskResponse(await f.api.post("/claims", bilal, { queue: "crawl" })).id).toBe(crawl.id);
    expect(await f.eventCount(task.id)).toBe(1); // created only: nothing written by the refusals
  });
});

describe("hand-offs and progress", () => {
  test("a hand-off from release reaches the next claimant with its author; one from fail replaces it", async () => {
    const task = await create("notes");
    const held = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, amal, { version: 1 }));
    const note = { summary: "Called the tenant; no answer", next: "Try after 5 pm", artifacts: ["https://crm.test/call/7"] };
    const released = expectTaskResponse(await f.api.post(`/tasks/${task.id}/release`, amal, { version: held.version, handoff: note }));
    expect(released.handoff).toMatchObject({ ...note, by: { name: "amal", kind: "agent" } });

    const next = expectTaskResponse(await f.api.post("/claims", bilal, { queue: "notes" }));
    expect(next.id).toBe(task.id);
    expect(next.handoff).toEqual({ ...note, by: released.handoff!.by, at: released.updatedAt });

    const failed = expectTaskResponse(await f.api.post(`/tasks/${task.id}/fail`, bilal, {
      version: next.version, reason: "tenant moved", handoff: { summary: "Tenant moved out" },
    }));
    const again = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, amal, { version: failed.version }));
    expect(again.handoff).toMatchObject({ summary: "Tenant moved out", next: null, artifacts: [], by: { name: "bilal" } });
    const types = (await history(task.id)).filter((e) => e.payload.handoff).map((e) => e.type);
    expect(types).toEqual(["released", "failed"]);
  });

  test("a hand-off over its limits is a 400 naming the field, and changes nothing", async () => {
    const task = await create("notes-limits");
    const held = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, amal, { version: 1 }));
    const cases: [unknown, string][] = [
      [{ summary: "" }, "handoff.summary"],
      [{ summary: "s".repeat(2001) }, "handoff.summary"],
      [{ summary: "ok", next: "n".repeat(2001) }, "handoff.next"],
      [{ summary: "ok", artifacts: Array.from({ length: 21 }, (_, i) => `a${i}`) }, "handoff.artifacts"],
      [{ summary: "ok", artifacts: ["x".repeat(501)] }, "handoff.artifacts.0"],
      [{ summary: "ok", links: [] }, "handoff"],
    ];
    for (const [handoff, field] of cases) {
      const error = expectError(await f.api.post(`/tasks/${task.id}/release`, amal, { version: held.version, handoff }), 400, "invalid_request");
      expect(error.field ?? "handoff", error.message).toBe(field);
    }
    expect(expectTaskResponse(await f.api.get(`/tasks/${task.id}`, amal))).toMatchObject({ status: "claimed", handoff: null });
  });

  test("progress shows on the task; a lapse after progress writes the system's hand-off", async () => {
    const task = await create("progress");
    const held = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, amal, { version: 1 }));
    const beat = expectTaskResponse(await f.api.post(`/tasks/${task.id}/heartbeat`, amal, { version: held.version, progress: "copied 300 of 1000" }));
    expect(beat.progress).toMatchObject({ value: "copied 300 of 1000" });
    await f.lapseLease(task.id);
    const taken = expectTaskResponse(await f.api.post("/claims", bilal, { queue: "progress" }));
    expect(taken.progress).toBeNull();
    expect(taken.handoff).toMatchObject({ summary: "copied 300 of 1000", next: null, artifacts: [], by: { kind: "system", name: "system" } });
    const lapse = (await history(task.id)).find((e) => e.type === "lease_expired");
    expect(lapse?.payload.handoff).toMatchObject({ summary: "copied 300 of 1000" });
  });
});

describe("the attempt ceiling", () => {
  test("a heartbeat past claimed at + maxAttemptSeconds is 409 attempt_limit; the lapse is a strike; the last goes to the inbox", async () => {
    await f.queueSettings("capped", { maxAttemptSeconds: 60, leaseSeconds: 30, maxFailures: 2 });
    const task = await create("capped");
    let current: WireTask = task;
    for (const strike of [1, 2]) {
      const held = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, amal, { version: current.version }));
      await f.ageAttempt(task.id, 50); // 50 s into a 60 s ceiling: a 30 s renewal would pass it
      const refused = expectError(await f.api.post(`/tasks/${task.id}/heartbeat`, amal, { version: held.version }), 409, "attempt_limit");
      expect(refused.message).toMatch(/ceiling.*60 s/);
      expect(refused.task?.leaseUntil).toBe(held.leaseUntil); // not extended
      await f.lapseLease(task.id);
      const next = await f.api.post("/claims", bilal, { queue: "capped" });
      if (strike === 1) {
        const taken = expectTaskResponse(next);
        expect(taken).toMatchObject({ id: task.id, failureCount: 1 });
        current = expectTaskResponse(await f.api.post(`/tasks/${task.id}/release`, bilal, { version: taken.version }));
      } else {
        expect(next.status, next.text).toBe(204);
      }
    }
    const final = expectTaskResponse(await f.api.get(`/tasks/${task.id}`, amal));
    expect(final).toMatchObject({ status: "escalated", failureCount: 2, owner: null });
    const types = (await history(task.id)).map((e) => e.type);
    expect(types.filter((t) => t === "attempt_limit_reached")).toHaveLength(2);
    expect(types.slice(-4)).toEqual(["attempt_limit_reached", "lease_expired", "failed", "escalated"]);
  });
});

describe("Claimboard-Instance", () => {
  test("claim, heartbeat and completion events record the calling instance; a bad header is a 400 naming it", async () => {
    const task = await create("fleet");
    const as = (instance: string) => ({ "Claimboard-Instance": instance });
    const held = expectTaskResponse(await f.api.post("/claims", amal, { queue: "fleet", start: true }, as("box-1:4242")));
    expect(held.id).toBe(task.id);
    await f.api.post(`/tasks/${task.id}/heartbeat`, amal, { version: held.version }, as("box-1:4242"));
    expectTaskResponse(await f.api.post(`/tasks/${task.id}/complete`, amal, { version: held.version }, as("box-2:77")));
    const recorded = (await history(task.id)).map((e) => [e.type, e.payload.instance]);
    expect(recorded).toEqual([
      ["created", undefined], ["claimed", "box-1:4242"], ["heartbeat", "box-1:4242"], ["completed", "box-2:77"],
    ]);
    for (const bad of ["has space", "x".repeat(201)]) {
      const error = expectError(await f.api.post("/claims", amal, { queue: "fleet" }, as(bad)), 400, "invalid_request");
      expect(error.field).toBe("Claimboard-Instance");
    }
  });
});
