import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, createTask, failTask, setQueueSettings, superviseMany, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf, failure, rowCounts, taskRow } from "@/test/inspect";

let f: EngineFixture;
let amal: ActorRef;
let supervisor: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  supervisor = await f.actor("Sara");
  await f.queue("bulk");
  await f.must(setQueueSettings, { queue: "bulk", maxFailures: 1 }, supervisor);
});
afterAll(async () => {
  await f?.close();
});

/** A task escalated after one failure (queue "bulk" has max_failures 1), at version 3. */
async function escalated(title = "escalated") {
  const task = await f.task(title, { queue: "bulk" });
  await f.must(claim, { taskId: task.id, version: 1 }, amal);
  await f.must(failTask, { taskId: task.id, version: 2, reason: "401 from the billing API" }, amal);
  return task;
}

describe("superviseMany", () => {
  test("requeues every item in one transaction, each event carrying the note", async () => {
    const tasks = [await escalated(), await escalated(), await escalated()];
    const results = await f.must(superviseMany, {
      action: "requeue", reason: "billing key rotated", tasks: tasks.map((t) => ({ taskId: t.id, version: 3 })),
    }, supervisor);
    expect(results.map((r) => [r.taskId, r.ok])).toEqual(tasks.map((t) => [t.id, true]));
    const last = await Promise.all(tasks.map(async (t) => (await eventsOf(f.db, t.id)).at(-1)!));
    for (const event of last) expect(event).toMatchObject({ type: "requeued", actorId: supervisor.id, payload: { reason: "billing key rotated", version: 4 } });
    expect(new Set(last.map((e) => e.txId)).size).toBe(1); // one transaction (and so one event INSERT, one NOTIFY)
    for (const t of tasks) expect(await taskRow(f.db, t.id)).toMatchObject({ status: "queued", failureCount: 0, version: 4 });
  });

  test("a stale item is reported in its own result and the others are done; results keep the given order", async () => {
    const [a, b, c] = [await escalated(), await escalated(), await escalated()];
    const results = await f.must(superviseMany, {
      action: "resolve", tasks: [{ taskId: c!.id, version: 3 }, { taskId: b!.id, version: 2 }, { taskId: a!.id, version: 3 }],
    }, supervisor);
    expect(results.map((r) => r.taskId)).toEqual([c!.id, b!.id, a!.id]);
    expect(results[0]).toMatchObject({ ok: true, task: { status: "done" } });
    expect(results[1]).toMatchObject({ ok: false, error: { code: "version_conflict" } });
    expect(results[2]).toMatchObject({ ok: true });
    expect(await taskRow(f.db, b!.id)).toMatchObject({ status: "escalated", version: 3 });
    expect((await eventsOf(f.db, b!.id)).at(-1)!.type).toBe("escalated");
  });

  test("cancel keeps the single-task rules: a held task is refused, a dependent goes to the inbox", async () => {
    const dropped = await escalated();
    const dependent = await f.must(createTask, { title: "after", queue: "bulk", dependsOn: [dropped.id] }, supervisor);
    const held = await f.task("held", { queue: "bulk" });
    await f.must(claim, { taskId: held.id, version: 1 }, amal);
    const results = await f.must(superviseMany, {
      action: "cancel", tasks: [{ taskId: dropped.id, version: 3 }, { taskId: held.id, version: 2 }],
    }, supervisor);
    expect(results[0]).toMatchObject({ ok: true, task: { status: "cancelled" } });
    expect(results[1]).toMatchObject({ ok: false, error: { code: "invalid_transition" } });
    expect(await taskRow(f.db, held.id)).toMatchObject({ status: "claimed", version: 2 });
    expect(await taskRow(f.db, dependent.id)).toMatchObject({ status: "escalated" });
  });

  test("bad input is refused before anything is written: a repeated task, an empty list, an unknown action", async () => {
    const task = await escalated();
    const before = await rowCounts(f.db);
    const repeated = failure(await f.run(superviseMany, {
      action: "requeue", tasks: [{ taskId: task.id, version: 3 }, { taskId: task.id, version: 3 }],
    }, supervisor), "invalid_request");
    expect(repeated.field).toBe("tasks.1.taskId");
    failure(await f.run(superviseMany, { action: "requeue", tasks: [] }, supervisor), "invalid_request");
    failure(await f.run(superviseMany, { action: "delete" as never, tasks: [{ taskId: task.id, version: 3 }] }, supervisor), "invalid_request");
    expect(await rowCounts(f.db)).toEqual(before);
  });
});
