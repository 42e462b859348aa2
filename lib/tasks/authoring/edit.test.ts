import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  acknowledge,
  addComment, claim, complete, createTask, editTask, failTask, foldEvents, release, review, setQueueSettings, start,
  taskHistory, type ActorRef,
} from "@/lib/tasks";
import { engineFixture, withStanding, type EngineFixture } from "@/test/engine";
import { eventsOf, eventTypes, failure, taskRow } from "@/test/inspect";
import { PAYLOAD_FROM_MAX_BYTES } from "./edit";

/** A supervisor's edit: the one editTask, performed with the supervisor standing. */
const editAnyTask = withStanding(editTask, "supervisor");

let f: EngineFixture;
let amal: ActorRef;
let bilal: ActorRef;
let agent: ActorRef;
let sara: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  bilal = await f.actor("Bilal");
  agent = await f.actor("agent-7", "agent");
  sara = await f.actor("Sara");
  await f.queue("edits-inbox");
  await f.must(setQueueSettings, { queue: "edits-inbox", maxFailures: 1 }, sara);
});
afterAll(async () => {
  await f?.close();
});

const byAmal = (input: { queue?: string; payload?: Record<string, string | number> } = {}) =>
  f.must(createTask, { title: "Inspectoins", description: "check site 7", priority: 0, ...input }, amal);

describe("editTask", () => {
  test("the creator edits a queued task: version + 1, updated_at, one edited event with each change's from and to", async () => {
    const task = await byAmal({ payload: { site: 7 } });
    f.clock.advance(5);
    const edited = await f.must(editTask, { taskId: task.id, version: 1, title: "Inspections", priority: 3, description: "check site 7" }, amal);
    expect(edited).toMatchObject({ title: "Inspections", priority: 3, description: "check site 7", version: 2, status: "queued" });
    expect(edited.updatedAt.getTime()).toBe(f.clock.time.getTime());
    const last = (await eventsOf(f.db, task.id)).at(-1)!;
    expect(last).toMatchObject({ type: "edited", actorId: amal.id });
    // The description was named but unchanged: not a change.
    expect(last.payload).toEqual({ version: 2, status: "queued", changes: { title: { from: "Inspectoins", to: "Inspections" }, priority: { from: 0, to: 3 } } });
  });

  test("an edit that changes nothing writes nothing and keeps the version, even when its version is stale (a retry)", async () => {
    const task = await byAmal({ payload: { b: 1, a: 2 } });
    await f.must(editTask, { taskId: task.id, version: 1, title: "Renamed" }, amal);
    const same = await f.must(editTask, { taskId: task.id, version: 1, title: "Renamed", payload: { a: 2, b: 1 } }, amal);
    expect(same.version).toBe(2);
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "edited"]);
  });

  test("a stale version is a version_conflict carrying the task as it is now; nothing is written", async () => {
    const task = await byAmal();
    await f.must(editTask, { taskId: task.id, version: 1, title: "First" }, amal);
    const error = failure(await f.run(editTask, { taskId: task.id, version: 1, title: "Second" }, amal), "version_conflict");
    expect(error.task).toMatchObject({ title: "First", version: 2 });
    expect((await taskRow(f.db, task.id)).title).toBe("First");
  });

  test("someone else may not edit; the last holder may; a supervisor may edit any", async () => {
    const task = await byAmal();
    const refused = failure(await f.run(editTask, { taskId: task.id, version: 1, title: "Bilal's" }, bilal), "forbidden");
    expect(refused.task?.title).toBe("Inspectoins");
    await f.must(claim, { taskId: task.id, version: 1 }, agent);
    await f.must(release, { taskId: task.id, version: 2 }, agent);
    expect(await f.must(editTask, { taskId: task.id, version: 3, description: "site 7 has two gates" }, agent)).toMatchObject({ version: 4 });
    expect(await f.must(editAnyTask, { taskId: task.id, version: 4, priority: -5 }, sara)).toMatchObject({ priority: -5, version: 5 });
    expect(await taskRow(f.db, task.id)).toMatchObject({ description: "site 7 has two gates", priority: -5 });
  });

  test("held and done tasks cannot be edited (invalid_transition); an escalated one can", async () => {
    const held = await byAmal();
    await f.must(claim, { taskId: held.id, version: 1 }, amal);
    const error = failure(await f.run(editTask, { taskId: held.id, version: 2, title: "x" }, amal), "invalid_transition");
    expect(error.message).toMatch(/claimed .*only a queued or escalated task/);
    await f.must(start, { taskId: held.id, version: 2 }, amal);
    await f.must(complete, { taskId: held.id, version: 3 }, amal);
    failure(await f.run(editAnyTask, { taskId: held.id, version: 4, title: "x" }, sara), "invalid_transition");
    // Even a no-op edit of a done task is refused: the state, not the diff, decides first.
    failure(await f.run(editAnyTask, { taskId: held.id, version: 4, title: "Inspectoins" }, sara), "invalid_transition");

    const escalated = await byAmal({ queue: "edits-inbox" });
    await f.must(claim, { taskId: escalated.id, version: 1 }, agent);
    await f.must(failTask, { taskId: escalated.id, version: 2, reason: "the gate code is wrong" }, agent);
    expect(await f.must(editTask, { taskId: escalated.id, version: 3, payload: { gate: "4471" } }, amal)).toMatchObject({ status: "escalated", version: 4 });
  });

  test("queue is an editable field: the task moves to another open queue, its event in the new queue; an archived or unknown one is refused", async () => {
    await f.queue("edits-there");
    await f.queue("edits-archived", { archivedAt: new Date() });
    const task = await byAmal();
    const moved = await f.must(editTask, { taskId: task.id, version: 1, queue: "edits-there" }, amal);
    expect(moved).toMatchObject({ queue: "edits-there", version: 2, status: "queued" });
    const last = (await eventsOf(f.db, task.id)).at(-1)!;
    expect(last).toMatchObject({ type: "edited", queue: "edits-there", payload: { changes: { queue: { from: "default", to: "edits-there" } } } });
    expect(foldEvents(await taskHistory(f.db, task.id))).toMatchObject({ queue: "edits-there", version: 2 });
    for (const queue of ["edits-archived", "edits-nowhere"]) {
      const refused = await f.run(editTask, { taskId: task.id, version: 2, queue }, amal);
      expect(refused.ok).toBe(false);
      expect((await taskRow(f.db, task.id)).queue).toBe("edits-there");
    }
  });

  test("a worked task's terms are a supervisor's: its last holder cannot move a rejected task out of review, nor lift its budget", async () => {
    await f.queue("edits-reviewed", { review: "everyone" });
    await f.queue("edits-unreviewed");
    let task = await f.must(createTask, { title: "Refund order 88", queue: "edits-reviewed", budget: { limit: 10, unit: "usd_cents" } }, amal);
    task = await f.must(claim, { taskId: task.id, version: task.version }, agent);
    task = await f.must(start, { taskId: task.id, version: task.version }, agent);
    task = await f.must(complete, { taskId: task.id, version: task.version, result: { refunded: true } }, agent);
    task = await f.must(review, { taskId: task.id, version: task.version, decision: "reject", digest: task.submission!.digest, note: "wrong amount" }, bilal);
    expect(task).toMatchObject({ status: "queued", attempt: 1 });
    const events = (await eventsOf(f.db, task.id)).length;
    // The agent held it last and the creator made it: neither may change where or how it is worked now.
    const attempts: [Record<string, unknown>, ActorRef][] = [
      [{ queue: "edits-unreviewed" }, agent],
      [{ budget: null }, agent],
      [{ budget: { limit: 1000, unit: "usd_cents" } }, amal],
      [{ reserves: [{ resource: "orders/88", mode: "exclusive" }], queue: "edits-unreviewed" }, amal],
      [{ notBefore: new Date(Date.now() + 60_000).toISOString() }, agent],
    ];
    for (const [terms, by] of attempts) {
      const refused = failure(await f.run(editTask, { taskId: task.id, version: task.version, ...terms }, by), "forbidden");
      expect(refused.message).toMatch(/has been worked \(attempt 1\): only a supervisor may change its/);
      expect(refused.field).toBe(Object.keys(terms).includes("queue") ? "queue" : Object.keys(terms)[0]);
    }
    const row = await taskRow(f.db, task.id);
    expect({ queue: row.queue, version: row.version, budget: Number(row.budgetLimit) }).toEqual({ queue: "edits-reviewed", version: task.version, budget: 10 });
    expect(await eventsOf(f.db, task.id)).toHaveLength(events);
    // Its words are still theirs; its terms a supervisor's.
    task = await f.must(editTask, { taskId: task.id, version: task.version, title: "Refund order 88 (partial)" }, agent);
    task = await f.must(editAnyTask, { taskId: task.id, version: task.version, queue: "edits-unreviewed" }, sara);
    expect(task).toMatchObject({ queue: "edits-unreviewed", title: "Refund order 88 (partial)" });
    // Before anyone claims a task, its creator may still set its terms, as a create could have.
    const fresh = await f.must(createTask, { title: "Refund order 89", queue: "edits-reviewed" }, amal);
    expect(await f.must(editTask, { taskId: fresh.id, version: fresh.version, queue: "edits-unreviewed", budget: { limit: 5, unit: "usd_cents" } }, amal)).toMatchObject({ queue: "edits-unreviewed" });
  });

  test("a move into a queue that already holds the task's idempotency key is refused, naming the queue field", async () => {
    await f.queue("edits-keyed");
    const here = await f.must(createTask, { title: "keyed", idempotencyKey: "k-1" }, amal);
    await f.must(createTask, { title: "keyed there", queue: "edits-keyed", idempotencyKey: "k-1" }, amal);
    const refused = await f.run(editTask, { taskId: here.id, version: 1, queue: "edits-keyed" }, amal);
    expect(refused).toMatchObject({ ok: false, error: { code: "invalid_request", field: "queue" } });
  });

  test("notBefore is set and removed by an edit (null removes it); the same instant written differently is no change", async () => {
    const task = await byAmal();
    const at = new Date(f.clock.time.getTime() + 3_600_000);
    const later = await f.must(editTask, { taskId: task.id, version: 1, notBefore: at.toISOString() }, amal);
    expect(later).toMatchObject({ version: 2 });
    expect(later.notBefore?.getTime()).toBe(at.getTime());
    const same = await f.must(editTask, { taskId: task.id, version: 2, notBefore: at.toISOString().replace(".000Z", "+00:00") }, amal);
    expect(same.version).toBe(2);
    const now = await f.must(editTask, { taskId: task.id, version: 2, notBefore: null }, amal);
    expect(now).toMatchObject({ version: 3, notBefore: null });
    expect((await eventsOf(f.db, task.id)).at(-1)!.payload).toMatchObject({ changes: { notBefore: { to: null } } });
    const { id: _id, blockedBy: _b, ...state } = await taskRow(f.db, task.id);
    expect(foldEvents(await taskHistory(f.db, task.id))).toEqual(state);
  });

  test("bad input names the field; an edit naming no field is refused; an unknown task is not_found", async () => {
    const task = await byAmal();
    expect(failure(await f.run(editTask, { taskId: task.id, version: 1, title: "" }, amal), "invalid_request").field).toBe("title");
    expect(failure(await f.run(editTask, { taskId: task.id, version: 1, priority: 1.5 }, amal), "invalid_request").field).toBe("priority");
    expect(failure(await f.run(editTask, { taskId: task.id, version: 1 }, amal), "invalid_request").message).toMatch(/at least one of title/);
    failure(await f.run(editTask, { taskId: "999999", version: 1, title: "x" }, amal), "not_found");
    expect(await eventTypes(f.db, task.id)).toEqual(["created"]);
  });

  test("a large previous payload is not repeated in the event; the new one always is, and the history replays", async () => {
    const big = { text: "x".repeat(PAYLOAD_FROM_MAX_BYTES) };
    const task = await byAmal({ payload: big });
    await f.must(editTask, { taskId: task.id, version: 1, payload: { text: "short" } }, amal);
    await f.must(addComment, { taskId: task.id, body: "shortened the payload" }, bilal);
    await f.must(editTask, { taskId: task.id, version: 2, payload: { text: "shorter" } }, amal);
    const events = await eventsOf(f.db, task.id);
    expect((events[1]!.payload as { changes: unknown }).changes).toEqual({ payload: { to: { text: "short" }, fromOmitted: true } });
    expect((events[3]!.payload as { changes: unknown }).changes).toEqual({ payload: { from: { text: "short" }, to: { text: "shorter" } } });
    const row = await taskRow(f.db, task.id);
    const replayed = foldEvents(await taskHistory(f.db, task.id));
    expect({ payload: replayed.payload, version: replayed.version, updatedAt: replayed.updatedAt }).toEqual({
      payload: row.payload, version: row.version, updatedAt: row.updatedAt,
    });
  });
});

describe("addComment", () => {
  test("a comment is a commented event: no status, version or updated_at change, in any status", async () => {
    const task = await byAmal();
    await f.must(claim, { taskId: task.id, version: 1 }, amal);
    const before = await taskRow(f.db, task.id);
    f.clock.advance(3);
    const event = await f.must(addComment, { taskId: task.id, body: "  Gate 2 is locked; ask Bilal.  " }, agent);
    expect(event).toMatchObject({ taskId: task.id, type: "commented", actor: { id: agent.id }, payload: { body: "  Gate 2 is locked; ask Bilal.  " } });
    const after = await taskRow(f.db, task.id);
    expect([after.version, after.status, after.updatedAt]).toEqual([before.version, before.status, before.updatedAt]);
    // The owner's retried call still reads as a retry past the comment.
    await f.must(start, { taskId: task.id, version: 2 }, amal);
    await f.must(addComment, { taskId: task.id, body: "starting" }, amal);
    expect(await f.must(start, { taskId: task.id, version: 2 }, amal)).toMatchObject({ status: "started", version: 3 });
    // The agent's comment is input for Amal, who holds the task: read before done (docs/leases.md).
    failure(await f.run(complete, { taskId: task.id, version: 3 }, amal), "unread_human_input");
    await f.must(acknowledge, { taskId: task.id, version: 3, eventId: event.id }, amal);
    await f.must(complete, { taskId: task.id, version: 3 }, amal);
    await f.must(addComment, { taskId: task.id, body: "done, thanks" }, bilal);
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed", "commented", "started", "commented", "acknowledged", "completed", "commented"]);
  });

  test("a comment over 4,000 characters, or of blanks only, names body; an unknown task is not_found", async () => {
    const task = await byAmal();
    expect(failure(await f.run(addComment, { taskId: task.id, body: "x".repeat(4001) }, amal), "invalid_request")).toMatchObject({
      field: "body", message: "body must be at most 4000 characters",
    });
    expect(failure(await f.run(addComment, { taskId: task.id, body: "   " }, amal), "invalid_request").field).toBe("body");
    await f.must(addComment, { taskId: task.id, body: "x".repeat(4000) }, amal);
    failure(await f.run(addComment, { taskId: "999999", body: "hello" }, amal), "not_found");
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "commented"]);
  });
});
