import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  claim, claimNext, complete, failTask, forceRelease, recordEffect, recordSideEffect, release, resolveEffect, start, sweepExpiredLeases,
  taskEffectsList, type ActorRef, type Task,
} from "@/lib/tasks";
import { foldEvents } from "@/lib/tasks/reads/fold";
import { engineFixture, withStanding, type EngineFixture } from "@/test/engine";
import { eventsOf, eventTypes, failure, rowCounts, taskRow } from "@/test/inspect";

// Issue 22, item 2: the effect ledger — states and transitions as docs/contract.md#the-effect-ledger says, written in the
// transactions of the holdings that end them, and the cost to a task without effects: none.

let f: EngineFixture;
let amal: ActorRef;
let bilal: ActorRef;
let sara: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal", "agent");
  bilal = await f.actor("Bilal", "agent");
  sara = await f.actor("Sara");
});
afterAll(async () => {
  await f?.close();
});

const supervisorResolve = withStanding(resolveEffect, "supervisor");

async function startedBy(actor: ActorRef, queue: string, title = "effects"): Promise<Task> {
  const task = await f.task(title, { queue });
  const held = await f.must(claim, { taskId: task.id, version: task.version }, actor);
  return f.must(start, { taskId: task.id, version: held.version }, actor);
}

/** The row agrees with its history: the fold replays the ledger's counts too. */
async function expectFolds(taskId: string) {
  const { id: _id, blockedBy: _b, ...row } = await taskRow(f.db, taskId);
  expect(foldEvents(await eventsOf(f.db, taskId))).toEqual(row);
}

describe("recording and resolving within an attempt", () => {
  test("intended → applied: a stable key, the same key again answers the existing effect; the count follows", async () => {
    const task = await startedBy(amal, "ledger");
    const recorded = await f.must(recordEffect, { taskId: task.id, version: task.version, name: "charge card", key: "order-7", target: "stripe", detail: { cents: 1200 } }, amal);
    expect(recorded.created).toBe(true);
    expect(recorded.effect).toMatchObject({ name: "charge card", key: "order-7", target: "stripe", detail: { cents: 1200 }, state: "intended", attempt: 1, by: { id: amal.id } });
    expect(recorded.effect.idempotencyKey).toMatch(new RegExp(`^cbe_${task.id}_[A-Za-z0-9_-]{32}$`));
    expect(recorded.task.openEffects.map((e) => e.id)).toEqual([recorded.effect.id]);
    expect(await taskRow(f.db, task.id)).toMatchObject({ intendedEffects: 1, unknownEffects: 0, version: task.version });

    const again = await f.must(recordEffect, { taskId: task.id, version: task.version, name: "charge card (retry)", key: "order-7" }, amal);
    expect(again).toMatchObject({ created: false, effect: { id: recorded.effect.id, name: "charge card", state: "intended" } });
    expect((await taskRow(f.db, task.id)).intendedEffects).toBe(1);

    const resolved = await f.must(resolveEffect, { taskId: task.id, effectId: recorded.effect.id, version: task.version, state: "applied", externalRef: "ch_1" }, amal);
    expect(resolved.effect).toMatchObject({ state: "applied", externalRef: "ch_1", resolvedBy: { id: amal.id } });
    expect(resolved.task.openEffects).toEqual([]);
    // A resolved effect stays as it is.
    const twice = failure(await f.run(resolveEffect, { taskId: task.id, effectId: recorded.effect.id, version: task.version, state: "failed" }, amal), "invalid_transition");
    expect(twice.message).toMatch(/already applied/);
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed", "started", "effect_intended", "effect_resolved"]);
    await expectFolds(task.id);
  });

  test("bad input is refused and writes nothing: not started, not the owner, unknown effect, stale version", async () => {
    const task = await f.task("refusals", { queue: "ledger" });
    const held = await f.must(claim, { taskId: task.id, version: 1 }, amal);
    const before = await rowCounts(f.db);
    failure(await f.run(recordEffect, { taskId: task.id, version: held.version, name: "x" }, amal), "invalid_transition"); // claimed, not started
    const started = await f.must(start, { taskId: task.id, version: held.version }, amal);
    const afterStart = await rowCounts(f.db);
    failure(await f.run(recordEffect, { taskId: task.id, version: started.version, name: "x" }, bilal), "not_owner");
    failure(await f.run(resolveEffect, { taskId: task.id, effectId: "999999", version: started.version, state: "applied" }, amal), "not_found");
    const { effect } = await f.must(recordEffect, { taskId: task.id, version: started.version, name: "push" }, amal);
    failure(await f.run(resolveEffect, { taskId: task.id, effectId: effect.id, version: started.version + 5, state: "applied" }, amal), "version_conflict");
    failure(await f.run(resolveEffect, { taskId: task.id, effectId: effect.id, version: started.version, state: "applied" }, bilal), "not_owner");
    expect(before.tasks).toBe(afterStart.tasks);
    expect((await f.must(taskEffectsList, { taskId: task.id }, sara)).map((e) => e.state)).toEqual(["intended"]);
  });
});

describe("an attempt that ends with an intent open leaves it unknown, in that transaction", () => {
  test("the crash story: A intends, A's lease lapses, B's claim carries it unknown, B's complete is refused until B resolves it", async () => {
    const queue = await f.queue("crash", { leaseSeconds: 30 });
    const a = await startedBy(amal, queue, "charge order 7");
    const { effect } = await f.must(recordEffect, { taskId: a.id, version: a.version, name: "charge card", key: "order-7" }, amal);
    f.clock.advance(31); // A froze

    const b = (await f.must(claimNext, { queue }, bilal))!;
    expect(b).toMatchObject({ id: a.id, attempt: 2, needsCheck: true });
    expect(b.openEffects).toMatchObject([{ id: effect.id, state: "unknown", idempotencyKey: effect.idempotencyKey, attempt: 1 }]);
    expect(await taskRow(f.db, a.id)).toMatchObject({ intendedEffects: 0, unknownEffects: 1 });
    const started = await f.must(start, { taskId: a.id, version: b.version, confirmCheck: true }, bilal);
    const refused = failure(await f.run(complete, { taskId: a.id, version: started.version }, bilal), "effects_unresolved");
    expect(refused.message).toContain("charge card");
    expect(refused.message).toContain(effect.idempotencyKey);
    expect(refused.task).toMatchObject({ status: "started", version: started.version });

    await f.must(resolveEffect, { taskId: a.id, effectId: effect.id, version: started.version, state: "applied", externalRef: "ch_1", note: "found it in the dashboard" }, bilal);
    const done = await f.must(complete, { taskId: a.id, version: started.version }, bilal);
    expect(done).toMatchObject({ status: "done", openEffects: [] });
    expect(await eventTypes(f.db, a.id)).toEqual([
      "created", "claimed", "started", "effect_intended", "lease_expired", "claimed", "effect_unknown", "check_confirmed", "started", "effect_resolved", "completed",
    ]);
    await expectFolds(a.id);
  });

  test("release, fail, force-release and the sweep each leave open intents unknown; a supervisor may resolve one; a completion applies its own intents", async () => {
    const queue = await f.queue("endings", { leaseSeconds: 30 });
    const ends: [string, (t: Task) => Promise<unknown>][] = [
      ["release", (t) => f.must(release, { taskId: t.id, version: t.version }, amal)],
      ["fail", (t) => f.must(failTask, { taskId: t.id, version: t.version, reason: "down" }, amal)],
      ["forceRelease", (t) => f.must(forceRelease, { taskId: t.id, version: t.version }, sara)],
      ["sweep", async () => (f.clock.advance(31), f.must(sweepExpiredLeases, { queue }, sara))],
    ];
    for (const [name, end] of ends) {
      const task = await startedBy(amal, queue, name);
      const { effect, task: after } = await f.must(recordEffect, { taskId: task.id, version: task.version, name: "deploy" }, amal);
      await end(after);
      const [listed] = await f.must(taskEffectsList, { taskId: task.id }, sara);
      expect(listed, name).toMatchObject({ id: effect.id, state: "unknown" });
      expect((await taskRow(f.db, task.id)).unknownEffects, name).toBe(1);
      expect((await eventTypes(f.db, task.id)).at(-1), name).toBe("effect_unknown");
      // Nobody holds it: a supervisor says what happened.
      const row = await taskRow(f.db, task.id);
      failure(await f.run(resolveEffect, { taskId: task.id, effectId: effect.id, version: row.version, state: "failed" }, bilal), "not_owner");
      const resolved = await f.must(supervisorResolve, { taskId: task.id, effectId: effect.id, version: row.version, state: "failed", note: "never ran" }, sara);
      expect(resolved.effect, name).toMatchObject({ state: "failed", note: "never ran", resolvedBy: { id: sara.id } });
      expect((await taskRow(f.db, task.id)).unknownEffects).toBe(0);
      await expectFolds(task.id);
    }

    const own = await startedBy(amal, queue, "own intents");
    const { task: t } = await f.must(recordEffect, { taskId: own.id, version: own.version, name: "email" }, amal);
    await f.must(complete, { taskId: own.id, version: t.version }, amal);
    expect((await f.must(taskEffectsList, { taskId: own.id }, sara)).map((e) => [e.state, e.resolvedBy?.id])).toEqual([["applied", amal.id]]);
    await expectFolds(own.id);
  });

  test("v1 side-effects records on top of the ledger; confirmCheck settles it, so a v1 agent still completes", async () => {
    const queue = await f.queue("v1", { leaseSeconds: 30 });
    const task = await startedBy(amal, queue);
    await f.must(recordSideEffect, { taskId: task.id, version: task.version, description: "sent the report" }, amal);
    expect((await f.must(taskEffectsList, { taskId: task.id }, sara))).toMatchObject([{ name: "sent the report", state: "intended", key: null }]);
    f.clock.advance(31);
    const b = (await f.must(claimNext, { queue }, bilal))!;
    expect(b.openEffects).toMatchObject([{ name: "sent the report", state: "unknown" }]);
    const started = await f.must(start, { taskId: task.id, version: b.version, confirmCheck: true }, bilal);
    await f.must(complete, { taskId: task.id, version: started.version }, bilal);
    expect((await f.must(taskEffectsList, { taskId: task.id }, sara)).map((e) => e.state)).toEqual(["applied"]);
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed", "started", "side_effect", "lease_expired", "claimed", "check_confirmed", "started", "completed"]);
    await expectFolds(task.id);
  });
});

describe("cost when unused", () => {
  test("a task without effects: no ledger row, no ledger statement, the same events as before", async () => {
    const queue = await f.queue("plain");
    const task = await startedBy(amal, queue);
    expect(task.openEffects).toEqual([]);
    await f.must(complete, { taskId: task.id, version: task.version }, amal);
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed", "started", "completed"]);
    expect(await f.must(taskEffectsList, { taskId: task.id }, sara)).toEqual([]);
  });
});
