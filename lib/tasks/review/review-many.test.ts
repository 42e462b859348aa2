import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, complete, release, reviewMany, start, type ActorRef, type Task } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf, failure, rowCounts, taskRow } from "@/test/inspect";

// The inbox's bulk review: each item is the single-task review, so the reviewer rule
// (self_review) is decided per task by the engine, reported in that task's own result, and
// the rest of the batch is decided in the same transaction.

let f: EngineFixture;
let agent: ActorRef;
let sara: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  agent = await f.actor("Bot", "agent");
  sara = await f.actor("Sara");
  await f.queue("bulk-review", { review: "everyone", maxFailures: 3 });
  await f.queue("after-bulk");
});
afterAll(async () => {
  await f?.close();
});

const at = (t: Task) => ({ taskId: t.id, version: t.version });
const item = (t: Task) => ({ ...at(t), digest: t.submission!.digest });

/** An in_review task the agent submitted; `heldBy` claimed and released it first (an attempt of theirs). */
async function submitted(heldBy?: ActorRef) {
  let task = await f.task("reviewed", { queue: "bulk-review" });
  if (heldBy) task = await f.must(release, at(await f.must(claim, at(task), heldBy)), heldBy);
  const started = await f.must(start, at(await f.must(claim, at(task), agent)), agent);
  const done = await f.must(complete, { ...at(started), result: { n: task.id } }, agent);
  expect(done.status).toBe("in_review");
  return done;
}

describe("reviewMany", () => {
  test("a task the supervisor held an attempt of is refused with self_review in its own result; the others are approved in one transaction", async () => {
    const [mine, theirs, third] = [await submitted(sara), await submitted(), await submitted()];
    const dependent = await f.task("after", { queue: "after-bulk", dependsOn: [theirs.id] });
    const mineBefore = await taskRow(f.db, mine.id);
    const results = await f.must(reviewMany, { decision: "approve", note: "batch ok", tasks: [item(third), item(mine), item(theirs)] }, sara);

    expect(results.map((r) => r.taskId)).toEqual([third.id, mine.id, theirs.id]); // the order given
    expect(results[0]).toMatchObject({ ok: true, task: { status: "done" } });
    expect(results[2]).toMatchObject({ ok: true, task: { status: "done" } });
    const refused = results[1]!;
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.code).toBe("self_review");
    expect(refused.error.message).toBe(`You held an attempt of task ${mine.id}: someone who did not work on it must review it (maker–checker)`);
    expect(await taskRow(f.db, mine.id)).toEqual(mineBefore); // nothing written for it

    const approved = [(await eventsOf(f.db, theirs.id)).at(-1)!, (await eventsOf(f.db, third.id)).at(-1)!];
    for (const e of approved) expect(e).toMatchObject({ type: "approved", actorId: sara.id, payload: { note: "batch ok" } });
    expect(new Set(approved.map((e) => e.txId)).size).toBe(1);
    // The approval's consequences are the single review's: the dependent is unblocked.
    expect((await taskRow(f.db, dependent.id)).blockedBy).toEqual([]);
  });

  test("the submitter is refused too; a bulk reject is a strike per task with the note as its hand-off", async () => {
    const bySara = await f.task("sara's own", { queue: "bulk-review" });
    const held = await f.must(start, at(await f.must(claim, at(bySara), sara)), sara);
    const own = await f.must(complete, { ...at(held), result: { mine: true } }, sara);
    const other = await submitted();
    const results = await f.must(reviewMany, { decision: "reject", note: "cite the sources", tasks: [item(own), item(other)] }, sara);
    expect(results[0]).toMatchObject({ ok: false, error: { code: "self_review", message: expect.stringMatching(/^You submitted task/) } });
    expect(results[1]).toMatchObject({ ok: true, task: { status: "queued", failureCount: 1, owner: null } });
    const next = await f.must(claim, at((results[1] as { task: Task }).task), await f.actor("Next", "agent"));
    expect(next.handoff).toMatchObject({ summary: "cite the sources", by: { id: sara.id } });
  });

  test("a stale version and a changed digest are reported per task; bad input is refused before anything is written", async () => {
    const [a, b, c] = [await submitted(), await submitted(), await submitted()];
    const results = await f.must(reviewMany, {
      decision: "approve", tasks: [{ ...item(a), version: a.version - 1 }, { ...item(b), digest: "0".repeat(64) }, item(c)],
    }, sara);
    expect(results.map((r) => (r.ok ? "ok" : r.error.code))).toEqual(["version_conflict", "submission_changed", "ok"]);
    expect((await taskRow(f.db, a.id)).status).toBe("in_review");
    expect((await taskRow(f.db, b.id)).status).toBe("in_review");

    const before = await rowCounts(f.db);
    expect(failure(await f.run(reviewMany, { decision: "approve", tasks: [item(a), item(a)] }, sara), "invalid_request").field).toBe("tasks.1.taskId");
    failure(await f.run(reviewMany, { decision: "approve", tasks: [] }, sara), "invalid_request");
    failure(await f.run(reviewMany, { decision: "maybe" as never, tasks: [item(a)] }, sara), "invalid_request");
    expect(failure(await f.run(reviewMany, { decision: "approve", tasks: [{ ...item(a), digest: "short" }] }, sara), "invalid_request").field).toBe("tasks.0.digest");
    expect(await rowCounts(f.db)).toEqual(before);
  });
});
