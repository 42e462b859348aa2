import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, claimNext, recordEffect, recordSideEffect, release, resolveEffect, start, type ActorRef, type Task } from "@/lib/tasks";
import { foldEvents } from "@/lib/tasks/reads/fold";
import { engineFixture, withStanding, type EngineFixture } from "@/test/engine";
import { eventsOf, eventTypes, failure, taskRow } from "@/test/inspect";

// One check, not two (contract v1.3): the check a lapse owes is of what the ended attempt
// began. Resolving its last unknown effect — ledger or v1 — is that check, so Start does not
// ask again; while one is unknown, it still does.

let f: EngineFixture;
let amal: ActorRef;
let dana: ActorRef;
let sara: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal", "agent");
  dana = await f.actor("Dana");
  sara = await f.actor("Sara");
});
afterAll(async () => {
  await f?.close();
});

const supervisorResolve = withStanding(resolveEffect, "supervisor");

async function expectFolds(taskId: string) {
  const { id: _id, blockedBy: _b, ...row } = await taskRow(f.db, taskId);
  expect(foldEvents(await eventsOf(f.db, taskId))).toEqual(row);
}

async function startedBy(actor: ActorRef, queue: string, title: string): Promise<Task> {
  const task = await f.task(title, { queue });
  const claimed = await f.must(claim, { taskId: task.id, version: task.version }, actor);
  return f.must(start, { taskId: task.id, version: claimed.version }, actor);
}

describe("resolving the last unknown effect is the check", () => {
  test("a lapse with two ledger effects and a v1 side effect: the check stays until the last is resolved, then Start needs no confirmation", async () => {
    const queue = await f.queue("one-check", { leaseSeconds: 30 });
    let a = await startedBy(amal, queue, "refund order 9");
    const refund = (await f.must(recordEffect, { taskId: a.id, version: a.version, name: "refund", key: "order-9" }, amal)).effect;
    const mail = (await f.must(recordEffect, { taskId: a.id, version: a.version, name: "email customer" }, amal)).effect;
    a = await f.must(recordSideEffect, { taskId: a.id, version: a.version, description: "posted in #support" }, amal);
    f.clock.advance(31);

    const b = (await f.must(claimNext, { queue }, dana))!;
    expect(b).toMatchObject({ id: a.id, needsCheck: true });
    const v1 = b.openEffects.find((e) => e.name === "posted in #support")!;
    expect(b.openEffects.map((e) => e.state)).toEqual(["unknown", "unknown", "unknown"]);

    const first = await f.must(resolveEffect, { taskId: a.id, effectId: refund.id, version: b.version, state: "applied", externalRef: "re_1" }, dana);
    expect(first.task.needsCheck).toBe(true);
    const second = await f.must(resolveEffect, { taskId: a.id, effectId: mail.id, version: b.version, state: "failed" }, dana);
    expect(second.task.needsCheck, "a v1 side effect is still unknown").toBe(true);
    // Start still asks while one is unknown.
    failure(await f.run(start, { taskId: a.id, version: b.version }, dana), "check_required");
    const last = await f.must(resolveEffect, { taskId: a.id, effectId: v1.id, version: b.version, state: "applied" }, dana);
    expect(last.task).toMatchObject({ needsCheck: false, openEffects: [] });
    const resolved = (await eventsOf(f.db, a.id)).filter((e) => e.type === "effect_resolved").map((e) => (e.payload as { checked?: true }).checked ?? false);
    expect(resolved).toEqual([false, false, true]);

    // Start without a second confirmation: started, and no check_confirmed.
    const started = await f.must(start, { taskId: a.id, version: b.version }, dana);
    expect(started).toMatchObject({ status: "started", needsCheck: false });
    expect((await eventTypes(f.db, a.id)).slice(-1)).toEqual(["started"]);
    expect(await eventTypes(f.db, a.id)).not.toContain("check_confirmed");
    await expectFolds(a.id);
  });

  test("a supervisor resolving the unknown effect of a task nobody holds: the next holder starts without a check", async () => {
    const queue = await f.queue("one-check-free", { leaseSeconds: 30 });
    const a = await startedBy(amal, queue, "deploy");
    const { effect, task } = await f.must(recordEffect, { taskId: a.id, version: a.version, name: "deploy v2" }, amal);
    const back = await f.must(release, { taskId: a.id, version: task.version }, amal);
    expect(back.needsCheck).toBe(true);
    const { task: checked } = await f.must(supervisorResolve, { taskId: a.id, effectId: effect.id, version: back.version, state: "applied" }, sara);
    expect(checked.needsCheck).toBe(false);
    const claimed = await f.must(claim, { taskId: a.id, version: checked.version }, dana);
    expect(claimed.needsCheck).toBe(false);
    expect(await f.must(start, { taskId: a.id, version: claimed.version }, dana)).toMatchObject({ status: "started" });
    await expectFolds(a.id);
  });

  test("resolving the holder's own intended effect leaves an owed check as it is", async () => {
    const queue = await f.queue("one-check-own", { leaseSeconds: 30 });
    let a = await startedBy(amal, queue, "two attempts");
    a = await f.must(recordSideEffect, { taskId: a.id, version: a.version, description: "began" }, amal);
    const back = await f.must(release, { taskId: a.id, version: a.version }, amal);
    const b = await f.must(claim, { taskId: a.id, version: back.version }, dana);
    const bStarted = await f.must(start, { taskId: a.id, version: b.version, confirmCheck: true }, dana);
    // Dana's own intent, resolved within her attempt: nothing was owed, nothing changes.
    const { effect, task } = await f.must(recordEffect, { taskId: a.id, version: bStarted.version, name: "her own" }, dana);
    expect(task.needsCheck).toBe(false);
    const resolved = await f.must(resolveEffect, { taskId: a.id, effectId: effect.id, version: task.version, state: "applied" }, dana);
    expect(resolved.task.needsCheck).toBe(false);
    expect((await eventsOf(f.db, a.id)).filter((e) => e.type === "effect_resolved").map((e) => (e.payload as { checked?: true }).checked)).toEqual([undefined]);
    await expectFolds(a.id);
  });
});
