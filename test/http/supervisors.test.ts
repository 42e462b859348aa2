import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { expectError, expectTaskResponse, httpFixture, type HttpFixture, type HttpResult } from "./helpers";

// Supervisors over the API (issue 15 item 6): the inbox's four decisions and the queues,
// against `next start` and PostgreSQL — success, bad input in words, the wrong role, a
// stale version — each refusal writing nothing.

let f: HttpFixture;
let boss: string;
let agent: string;
let watcher: string;
beforeAll(async () => {
  f = await httpFixture();
  boss = await f.token("boss", "supervisor");
  agent = await f.token("worker");
  watcher = await f.token("watcher", "observer");
});
afterAll(async () => {
  await f?.close();
});

interface WireQueue {
  name: string;
  description: string;
  leaseSeconds: number;
  maxFailures: number;
  paused: boolean;
  archivedAt: string | null;
  counts: Record<string, number>;
  throughput: { lastHour: number; last24Hours: number };
}
const queueOf = (res: HttpResult, status = 200) => {
  expect(res.status, res.text).toBe(status);
  return (res.body as { queue: WireQueue }).queue;
};
const patch = (name: string, body: unknown, token = boss) => f.api.request("PATCH", `/queues/${name}`, { token, json: body });

/** A task in `queue` claimed by the agent and failed once: escalated (the queue allows one failure). */
async function escalated(queue: string) {
  await f.queueSettings(queue, { maxFailures: 1 });
  const task = expectTaskResponse(await f.api.post("/tasks", agent, { title: "fails", queue }), 201);
  const claimed = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, agent, { version: 1 }));
  return expectTaskResponse(await f.api.post(`/tasks/${task.id}/fail`, agent, { version: claimed.version, reason: "401 from billing" }));
}

describe("POST /tasks/{id}/requeue | resolve | cancel | force-release", () => {
  test("a supervisor token decides; the event names the reason; the version moves by one", async () => {
    const a = await escalated("decide");
    const requeued = expectTaskResponse(await f.api.post(`/tasks/${a.id}/requeue`, boss, { version: a.version, reason: "key rotated" }));
    expect(requeued).toMatchObject({ status: "queued", failureCount: 0, version: a.version + 1 });
    const history = (await f.api.get(`/tasks/${a.id}/events`, boss)).body as { events: { type: string; payload: { reason?: string } }[] };
    expect(history.events.at(-1)).toMatchObject({ type: "requeued", payload: { reason: "key rotated" } });

    const b = await escalated("decide");
    expect(expectTaskResponse(await f.api.post(`/tasks/${b.id}/resolve`, boss, { version: b.version }))).toMatchObject({ status: "done" });
    const c = expectTaskResponse(await f.api.post("/tasks", agent, { title: "never mind", queue: "decide" }), 201);
    expect(expectTaskResponse(await f.api.post(`/tasks/${c.id}/cancel`, boss, { version: 1, reason: "duplicate" }))).toMatchObject({ status: "cancelled" });
  });

  test("force-release takes a held task back; the reason is the next claimant's hand-off note", async () => {
    await f.queue("held");
    const task = expectTaskResponse(await f.api.post("/tasks", agent, { title: "stuck", queue: "held" }), 201);
    const claimed = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, agent, { version: 1 }));
    const released = expectTaskResponse(await f.api.post(`/tasks/${task.id}/force-release`, boss, { version: claimed.version, reason: "agent is stuck" }));
    expect(released).toMatchObject({ status: "queued", owner: null, handoff: { summary: "agent is stuck", by: { name: "boss" } } });
    const next = expectTaskResponse(await f.api.post("/claims", agent, { queue: "held" }));
    expect(next).toMatchObject({ id: task.id, handoff: { summary: "agent is stuck" } });
  });

  test("agent and observer tokens are 403; a stale version is 409 with the task; a wrong state says so; nothing is written", async () => {
    const task = await escalated("refused");
    const before = await f.eventCount(task.id);
    for (const verb of ["requeue", "resolve", "cancel", "force-release"]) {
      expectError(await f.api.post(`/tasks/${task.id}/${verb}`, agent, { version: task.version }), 403, "forbidden");
      expectError(await f.api.post(`/tasks/${task.id}/${verb}`, watcher, { version: task.version }), 403, "forbidden");
      expectError(await f.api.post(`/tasks/${task.id}/${verb}`, null, { version: task.version }), 401, "unauthorized");
    }
    const stale = expectError(await f.api.post(`/tasks/${task.id}/requeue`, boss, { version: task.version - 1 }), 409, "version_conflict");
    expect(stale.task).toMatchObject({ id: task.id, status: "escalated", version: task.version });
    expectError(await f.api.post(`/tasks/${task.id}/force-release`, boss, { version: task.version }), 409, "invalid_transition");
    expect(expectError(await f.api.post(`/tasks/${task.id}/cancel`, boss, { version: "3" }), 400, "invalid_request").field).toBe("version");
    expect(expectError(await f.api.post(`/tasks/${task.id}/resolve`, boss, { version: task.version, reason: "x".repeat(2001) }), 400, "invalid_request").field).toBe("reason");
    expectError(await f.api.post("/tasks/999999/requeue", boss, { version: 1 }), 404, "not_found");
    expect(await f.eventCount(task.id)).toBe(before);
  });
});

describe("queues", () => {
  test("POST /queues makes one; GET /queues lists it with live counts; a create there works; an unknown queue is a 400 naming it", async () => {
    const made = queueOf(await f.api.post("/queues", boss, { name: "inspections", description: "Site visits", leaseSeconds: 300 }), 201);
    expect(made).toMatchObject({ name: "inspections", description: "Site visits", leaseSeconds: 300, paused: false, archivedAt: null, counts: { queued: 0 } });
    const typo = expectError(await f.api.post("/tasks", agent, { title: "Inspect 7", queue: "inspectoins" }), 400, "invalid_request");
    expect(typo).toMatchObject({ field: "queue", message: expect.stringContaining("queue 'inspectoins' does not exist") });
    expectError(await f.api.post("/claims", agent, { queue: "inspectoins" }), 400, "invalid_request");
    expectTaskResponse(await f.api.post("/tasks", agent, { title: "Inspect 7", queue: "inspections" }), 201);

    const list = await f.api.get("/queues", boss);
    expect(list.status).toBe(200);
    const { queues, cap } = list.body as { queues: WireQueue[]; cap: number };
    expect(cap).toBe(1000);
    expect(queues.map((q) => q.name)).toEqual(expect.arrayContaining(["default", "inspections"]));
    expect(queues.find((q) => q.name === "inspections")).toMatchObject({ counts: { queued: 1, claimed: 0, done: 0 }, throughput: { lastHour: 0, last24Hours: 0 } });
    expect(queues.some((q) => q.name === "inspectoins")).toBe(false);
  });

  test("bad creates are refused in words and make nothing: spaces, capitals, taken, out of range, unknown field", async () => {
    const count = async () => ((await f.api.get("/queues", boss)).body as { queues: unknown[] }).queues.length;
    const before = await count();
    const spaced = expectError(await f.api.post("/queues", boss, { name: "my queue" }), 400, "invalid_request");
    expect(spaced).toMatchObject({ field: "name", message: expect.stringContaining("no spaces") });
    expectError(await f.api.post("/queues", boss, { name: "Mail" }), 400, "invalid_request");
    expect(expectError(await f.api.post("/queues", boss, { name: "default" }), 400, "invalid_request").message).toBe("queue 'default' already exists");
    expect(expectError(await f.api.post("/queues", boss, { name: "fast", leaseSeconds: 1 }), 400, "invalid_request").field).toBe("leaseSeconds");
    expectError(await f.api.post("/queues", boss, { name: "fast", colour: "red" }), 400, "invalid_request");
    expect(await count()).toBe(before);
  });

  test("PATCH /queues/{name}: settings, description, pause and archive in one call; each its own event; archived refuses new work", async () => {
    queueOf(await f.api.post("/queues", boss, { name: "closing" }), 201);
    const changed = queueOf(await patch("closing", { description: "Winding down", maxFailures: 5, paused: true }));
    expect(changed).toMatchObject({ description: "Winding down", maxFailures: 5, paused: true });
    const archived = queueOf(await patch("closing", { archived: true, paused: false }));
    expect(archived).toMatchObject({ paused: false, archivedAt: expect.any(String) });
    expect(expectError(await f.api.post("/tasks", agent, { title: "late", queue: "closing" }), 400, "invalid_request").message).toMatch(/archived/);
    // Still listed for supervisors, with its state.
    const listed = ((await f.api.get("/queues", boss)).body as { queues: WireQueue[] }).queues.find((q) => q.name === "closing");
    expect(listed?.archivedAt).toEqual(archived.archivedAt);
    expect(queueOf(await patch("closing", { archived: false })).archivedAt).toBeNull();
    // Asking for what is already so changes nothing.
    expect(queueOf(await patch("closing", { maxFailures: 5 }))).toMatchObject({ maxFailures: 5 });
  });

  test("PATCH refusals: unknown queue 404, bad path or body 400, default cannot be archived (nothing of the call kept), wrong role 403", async () => {
    expectError(await patch("nowhere", { leaseSeconds: 30 }), 404, "not_found");
    expect(expectError(await patch("Not%20A%20Queue", { leaseSeconds: 30 }), 400, "invalid_request").field).toBe("name");
    expectError(await patch("default", {}), 400, "invalid_request");
    expect(expectError(await patch("default", { leaseSeconds: 1 }), 400, "invalid_request").field).toBe("leaseSeconds");
    const refused = expectError(await patch("default", { leaseSeconds: 45, archived: true }), 400, "invalid_request");
    expect(refused.message).toMatch(/cannot be archived/);
    const defaults = ((await f.api.get("/queues", boss)).body as { queues: WireQueue[] }).queues.find((q) => q.name === "default")!;
    expect(defaults.leaseSeconds).toBe(120); // rolled back with the refused archive
    for (const token of [agent, watcher]) {
      expectError(await f.api.get("/queues", token), 403, "forbidden");
      expectError(await f.api.post("/queues", token, { name: "sneaky" }), 403, "forbidden");
      expectError(await patch("default", { paused: true }, token), 403, "forbidden");
    }
    expectError(await f.api.get("/queues", null), 401, "unauthorized");
  });
});
