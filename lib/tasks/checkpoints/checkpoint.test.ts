import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  claim, claimNext, foldEvents, loadTask, recordCheckpoint, release, start, taskCheckpointsList, taskHistory, type ActorRef,
} from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventTypes, failure, taskRow } from "@/test/inspect";

let f: EngineFixture;
let amal: ActorRef;
let bilal: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  bilal = await f.actor("Bilal");
});
afterAll(async () => {
  await f?.close();
});

/** A task of its own queue, claimed and started by `who` (version 3). */
async function startedBy(queue: string, who: ActorRef) {
  const task = await f.task(queue, { queue });
  await f.must(claim, { taskId: task.id, version: 1 }, who);
  return f.must(start, { taskId: task.id, version: 2 }, who);
}

const checkpointRows = async (taskId: string) =>
  (await f.db.execute<{ attempt: number; step: number; state: unknown }>(
    sql`SELECT attempt, step, state FROM task_checkpoints WHERE task_id = ${taskId}::bigint ORDER BY attempt, step`,
  )).map((r) => ({ attempt: r.attempt, step: r.step, state: r.state }));

describe("checkpoints fenced by attempt", () => {
  test("the holder's checkpoints: 201-shaped answer, no version step, the task carries the latest, an event each", async () => {
    const task = await startedBy("cp-basic", amal);
    const first = await f.must(recordCheckpoint, { taskId: task.id, version: 3, step: 1, state: { page: 1 } }, amal);
    expect(first.checkpoint).toMatchObject({ step: 1, state: { page: 1 }, attempt: 1, by: { id: amal.id } });
    expect(first.task).toMatchObject({ version: 3, checkpoint: { step: 1, attempt: 1 } });
    const second = await f.must(recordCheckpoint, { taskId: task.id, version: 3, step: 2 }, amal);
    expect(second.task.checkpoint).toMatchObject({ step: 2, state: null });
    // A retried step replaces its own state and is the latest again.
    await f.must(recordCheckpoint, { taskId: task.id, version: 3, step: 1, state: { page: "again" } }, amal);
    expect((await loadTask(f.db, task.id))!.checkpoint).toMatchObject({ step: 1, state: { page: "again" } });
    expect(await checkpointRows(task.id)).toEqual([
      { attempt: 1, step: 1, state: { page: "again" } },
      { attempt: 1, step: 2, state: null },
    ]);
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed", "started", "checkpointed", "checkpointed", "checkpointed"]);
    const listed = await f.must(taskCheckpointsList, { taskId: task.id }, bilal);
    expect(listed.map((c) => c.step)).toEqual([1, 2]);
    // The fold oracle replays checkpointed: the row names the latest, as its history says.
    const row = await taskRow(f.db, task.id);
    expect(foldEvents(await taskHistory(f.db, task.id))).toMatchObject({ checkpointId: row.checkpointId, version: 3, updatedAt: row.updatedAt });
  });

  test("a claimed task is started first; a wrong version is a conflict; bad input names its field", async () => {
    const task = await f.task("cp-refusals", { queue: "cp-refusals" });
    await f.must(claim, { taskId: task.id, version: 1 }, amal);
    failure(await f.run(recordCheckpoint, { taskId: task.id, version: 2, step: 1 }, amal), "invalid_transition");
    await f.must(start, { taskId: task.id, version: 2 }, amal);
    failure(await f.run(recordCheckpoint, { taskId: task.id, version: 2, step: 1 }, amal), "version_conflict");
    failure(await f.run(recordCheckpoint, { taskId: task.id, version: 3, step: 1 }, bilal), "not_owner");
    const tooFar = failure(await f.run(recordCheckpoint, { taskId: task.id, version: 3, step: 201 }, amal), "invalid_request");
    expect(tooFar.field).toBe("step");
    const tooBig = failure(await f.run(recordCheckpoint, { taskId: task.id, version: 3, step: 1, state: "x".repeat(70_000) }, amal), "invalid_request");
    expect(tooBig.field).toBe("state");
    expect(await checkpointRows(task.id)).toEqual([]);
    expect((await taskRow(f.db, task.id)).checkpointId).toBeNull();
  });

  test("a successor's claim carries step 3; the stale holder's checkpoint is refused and changes nothing", async () => {
    const task = await startedBy("cp-takeover", amal);
    for (const step of [1, 2, 3]) await f.must(recordCheckpoint, { taskId: task.id, version: 3, step, state: { done: step } }, amal);
    f.clock.advance(121); // Amal's lease lapses (the queue's lease is 60 s)
    const taken = await f.must(claimNext, { queue: "cp-takeover" }, bilal);
    expect(taken).toMatchObject({ id: task.id, attempt: 2, checkpoint: { step: 3, state: { done: 3 }, attempt: 1, by: { id: amal.id } } });

    const before = await taskRow(f.db, task.id);
    const stale = failure(await f.run(recordCheckpoint, { taskId: task.id, version: 3, step: 4, state: { done: 4 } }, amal), "not_owner");
    expect(stale.task).toMatchObject({ owner: { id: bilal.id } });
    const staleAtNewVersion = await f.run(recordCheckpoint, { taskId: task.id, version: before.version, step: 4 }, amal);
    failure(staleAtNewVersion, "not_owner");
    expect(await taskRow(f.db, task.id)).toEqual(before);
    expect((await checkpointRows(task.id)).map((c) => c.attempt)).toEqual([1, 1, 1]);

    // The successor writes its own steps, under its attempt; the earlier attempt's stay.
    await f.must(start, { taskId: task.id, version: before.version }, bilal);
    const resumed = await f.must(recordCheckpoint, { taskId: task.id, version: before.version + 1, step: 4 }, bilal);
    expect(resumed.checkpoint).toMatchObject({ step: 4, attempt: 2 });
    expect(await checkpointRows(task.id)).toEqual([
      { attempt: 1, step: 1, state: { done: 1 } }, { attempt: 1, step: 2, state: { done: 2 } }, { attempt: 1, step: 3, state: { done: 3 } },
      { attempt: 2, step: 4, state: null },
    ]);
    const row = await taskRow(f.db, task.id);
    expect(foldEvents(await taskHistory(f.db, task.id)).checkpointId).toEqual(row.checkpointId);
  });

  test("a release keeps the latest checkpoint for the next claimant", async () => {
    const task = await startedBy("cp-release", amal);
    await f.must(recordCheckpoint, { taskId: task.id, version: 3, step: 2 }, amal);
    await f.must(release, { taskId: task.id, version: 3, handoff: { summary: "two of five" } }, amal);
    const taken = await f.must(claim, { taskId: task.id, version: 4 }, bilal);
    expect(taken).toMatchObject({ attempt: 2, checkpoint: { step: 2, attempt: 1 }, handoff: { summary: "two of five" } });
  });
});
