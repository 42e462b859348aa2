import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  archiveQueue, claim, claimBatch, claimNext, complete, createQueue, createTask, setQueuePaused, setQueueSettings,
  listQueues, start, taskReadiness, unarchiveQueue, updateQueue, type ActorRef, type Result,
} from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { failure, queueEvents, queueRow, rowCounts, taskRow } from "@/test/inspect";

let f: EngineFixture;
let sara: ActorRef;
let amal: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  sara = await f.actor("Sara");
  amal = await f.actor("Amal");
});
afterAll(async () => {
  await f?.close();
});

describe("queues are made on purpose", () => {
  test("a create, claim-next, batch, pause or settings change naming an unknown queue is a 400 naming it; nothing is written", async () => {
    const before = await rowCounts(f.db);
    const calls: Result<unknown>[] = [
      await f.run(createTask, { title: "Typo", queue: "inspectoins" }, amal),
      await f.run(claimNext, { queue: "inspectoins" }, amal),
      await f.run(claimBatch, { queue: "inspectoins", limit: 5 }, amal),
      await f.run(setQueuePaused, { queue: "inspectoins", paused: true }, sara),
      await f.run(setQueueSettings, { queue: "inspectoins", leaseSeconds: 30 }, sara),
    ];
    for (const result of calls) {
      expect(failure(result, "invalid_request")).toMatchObject({ field: "queue", message: expect.stringMatching(/^queue 'inspectoins' does not exist/) });
    }
    expect(await rowCounts(f.db)).toEqual(before);
    await expect(queueRow(f.db, "inspectoins")).rejects.toThrow(/no queue/);
  });

  test("an unknown queue close to an open one's name says which it likely meant, on every refusal (issue 27); an archived one is never suggested", async () => {
    await f.must(createQueue, { name: "triage" }, sara);
    await f.must(createQueue, { name: "retired-queue" }, sara);
    await f.must(archiveQueue, { queue: "retired-queue" }, sara);
    const calls: Result<unknown>[] = [
      await f.run(createTask, { title: "Typo", queue: "triag" }, amal),
      await f.run(claimNext, { queue: "triag" }, amal),
      await f.run(claimBatch, { queue: "triag", limit: 5 }, amal),
      await f.run(setQueuePaused, { queue: "triag", paused: true }, sara),
      await f.run(setQueueSettings, { queue: "triag", leaseSeconds: 30 }, sara),
    ];
    for (const result of calls) {
      expect(failure(result, "invalid_request").message).toMatch(/^queue 'triag' does not exist \(.*\)\. Did you mean 'triage'\?$/);
    }
    expect(failure(await f.run(claimNext, { queue: "retired-queu" }, amal), "invalid_request").message).not.toContain("Did you mean");
    expect(failure(await f.run(claimNext, { queue: "qqqqqqq" }, amal), "invalid_request").message).not.toContain("Did you mean");
  });

  test("the default queue exists from the first migration", async () => {
    expect(await queueRow(f.db, "default")).toMatchObject({ archivedAt: null });
    expect(await f.must(createTask, { title: "No queue named" }, amal)).toMatchObject({ queue: "default" });
  });

  test("createQueue makes a queue with its description and settings, recorded as who made it", async () => {
    const queue = await f.must(createQueue, {
      name: "inspections", description: "Site inspections", leaseSeconds: 300, claimants: "people", paused: true,
    }, sara);
    expect(queue).toMatchObject({ name: "inspections", description: "Site inspections", leaseSeconds: 300, claimants: "people", paused: true, pausedBy: sara.id });
    const [made] = await queueEvents(f.db, "inspections");
    expect(made).toMatchObject({ type: "settings_changed", taskId: null, actorId: sara.id, payload: { created: true, settings: { leaseSeconds: 300, maxFailures: 3 } } });
    // Once made, tasks go there.
    expect(await f.must(createTask, { title: "Inspect 7", queue: "inspections" }, amal)).toMatchObject({ queue: "inspections" });
  });

  test("a name with spaces or capitals, a second queue of the same name, or bad settings: refused in words, nothing written", async () => {
    const before = await rowCounts(f.db);
    const spaced = failure(await f.run(createQueue, { name: "my queue" }, sara), "invalid_request");
    expect(spaced).toMatchObject({ field: "name", message: expect.stringContaining("no spaces") });
    failure(await f.run(createQueue, { name: "Mail" }, sara), "invalid_request");
    await f.must(createQueue, { name: "twice" }, sara);
    const again = failure(await f.run(createQueue, { name: "twice", description: "other" }, sara), "invalid_request");
    expect(again).toMatchObject({ field: "name", message: "queue 'twice' already exists" });
    expect(failure(await f.run(createQueue, { name: "fast", leaseSeconds: 1 }, sara), "invalid_request").field).toBe("leaseSeconds");
    expect(failure(await f.run(createQueue, { name: "long", description: "x".repeat(501) }, sara), "invalid_request").field).toBe("description");
    expect(await rowCounts(f.db)).toEqual({ ...before, events: before.events + 1 }); // only "twice" was made
  });

  test("a description is a setting: changed with from → to", async () => {
    await f.must(createQueue, { name: "described" }, sara);
    await f.must(setQueueSettings, { queue: "described", description: "Now with words" }, sara);
    const events = await queueEvents(f.db, "described", "settings_changed");
    expect(events.at(-1)!.payload).toMatchObject({ changes: { description: { from: "", to: "Now with words" } } });
  });
});

describe("archive", () => {
  test("an archived queue refuses new tasks and claims (saying archived); what is held can be finished; restore re-opens it", async () => {
    await f.must(createQueue, { name: "closing" }, sara);
    const held = await f.must(createTask, { title: "Held", queue: "closing" }, amal);
    const waiting = await f.must(createTask, { title: "Waiting", queue: "closing" }, amal);
    await f.must(claim, { taskId: held.id, version: 1 }, amal);

    const archived = await f.must(archiveQueue, { queue: "closing" }, sara);
    expect(archived).toMatchObject({ archivedBy: sara.id });
    expect(archived.archivedAt).toBeInstanceOf(Date);
    expect((await queueEvents(f.db, "closing", "archived"))[0]).toMatchObject({ taskId: null, actorId: sara.id, payload: { openTasks: 2 } });

    const refusals: Result<unknown>[] = [
      await f.run(createTask, { title: "More", queue: "closing" }, amal),
      await f.run(claimNext, { queue: "closing" }, amal),
      await f.run(claimBatch, { queue: "closing", limit: 3 }, amal),
    ];
    for (const result of refusals) {
      expect(failure(result, "invalid_request")).toMatchObject({ field: "queue", message: expect.stringContaining("queue 'closing' is archived") });
    }
    const targeted = failure(await f.run(claim, { taskId: waiting.id, version: 1 }, amal), "invalid_request");
    expect(targeted).toMatchObject({ field: "queue", task: { id: waiting.id, status: "queued" } });
    expect(await taskRow(f.db, waiting.id)).toMatchObject({ status: "queued", version: 1 });
    const readiness = await f.must(taskReadiness, { taskId: waiting.id }, amal);
    expect(readiness).toMatchObject({ claimable: false, reasons: [{ code: "queue_archived" }] });

    // The held task is finished as usual.
    await f.must(start, { taskId: held.id, version: 2 }, amal);
    expect(await f.must(complete, { taskId: held.id, version: 3 }, amal)).toMatchObject({ status: "done" });

    // Archiving twice writes nothing more; restoring re-opens the queue.
    await f.must(archiveQueue, { queue: "closing" }, sara);
    expect(await queueEvents(f.db, "closing", "archived")).toHaveLength(1);
    expect(await f.must(unarchiveQueue, { queue: "closing" }, sara)).toMatchObject({ archivedAt: null, archivedBy: null });
    expect(await queueEvents(f.db, "closing", "unarchived")).toHaveLength(1);
    expect(await f.must(claimNext, { queue: "closing" }, amal)).toMatchObject({ id: waiting.id });
  });

  test("default cannot be archived; an unknown queue cannot be archived or restored", async () => {
    expect(failure(await f.run(archiveQueue, { queue: "default" }, sara), "invalid_request").message).toMatch(/cannot be archived/);
    expect(failure(await f.run(archiveQueue, { queue: "nope" }, sara), "invalid_request").message).toMatch(/does not exist/);
    expect(failure(await f.run(unarchiveQueue, { queue: "nope" }, sara), "invalid_request").message).toMatch(/does not exist/);
  });
});

describe("updateQueue and the queue list", () => {
  test("one call changes settings, pauses and archives, each with its own event; a refused part keeps nothing", async () => {
    await f.must(createQueue, { name: "bundle" }, sara);
    const queue = await f.must(updateQueue, { queue: "bundle", description: "Batches", leaseSeconds: 60, paused: true, archived: true }, sara);
    expect(queue).toMatchObject({ description: "Batches", leaseSeconds: 60, paused: true, archivedBy: sara.id });
    expect((await queueEvents(f.db, "bundle")).map((e) => e.type)).toEqual(["settings_changed", "settings_changed", "queue_paused", "archived"]);

    const before = await rowCounts(f.db);
    const refused = failure(await f.run(updateQueue, { queue: "default", leaseSeconds: 45, archived: true }, sara), "invalid_request");
    expect(refused.message).toMatch(/cannot be archived/);
    expect(await queueRow(f.db, "default")).toMatchObject({ leaseSeconds: 120 });
    expect(await rowCounts(f.db)).toEqual(before);
    expect(failure(await f.run(updateQueue, { queue: "nowhere", paused: true }, sara), "not_found").message).toMatch(/nowhere/);
  });

  test("listQueues: every queue with its state, counts by status and what it finished in the last hour and day", async () => {
    await f.must(createQueue, { name: "counted" }, sara);
    const done = await f.must(createTask, { title: "done", queue: "counted" }, amal);
    await f.must(createTask, { title: "waiting", queue: "counted" }, amal);
    await f.must(claim, { taskId: done.id, version: 1 }, amal);
    await f.must(start, { taskId: done.id, version: 2 }, amal);
    await f.must(complete, { taskId: done.id, version: 3 }, amal);
    const now = f.clock.time;
    const [counted] = (await listQueues(f.db, now)).filter((q) => q.name === "counted");
    expect(counted).toMatchObject({
      counts: { queued: 1, claimed: 0, started: 0, done: 1, escalated: 0, cancelled: 0 },
      throughput: { lastHour: 1, last24Hours: 1 }, paused: false, archivedAt: null,
    });
    // Two hours on, the completion is out of the last hour but still in the day.
    const later = (await listQueues(f.db, new Date(now.getTime() + 2 * 3600_000))).find((q) => q.name === "counted");
    expect(later?.throughput).toEqual({ lastHour: 0, last24Hours: 1 });
    const closing = (await listQueues(f.db, now)).find((q) => q.name === "closing");
    expect(closing).toBeDefined(); // archived and restored above: listed like any other
  });
});
