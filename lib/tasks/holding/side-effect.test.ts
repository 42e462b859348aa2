import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, claimNext, recordSideEffect, release, start, sweepExpiredLeases, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf, eventTypes, failure, taskRow } from "@/test/inspect";

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

/** Amal claims and starts a task of its own queue and records that an email went out. */
async function startedWithSideEffect(queue: string) {
  const task = await f.task(queue, { queue });
  await f.must(claim, { taskId: task.id, version: 1 }, amal);
  await f.must(start, { taskId: task.id, version: 2 }, amal);
  await f.must(recordSideEffect, { taskId: task.id, version: 3, description: "sent the email" }, amal);
  const row = await taskRow(f.db, task.id);
  expect(row).toMatchObject({ version: 3, sideEffectRecorded: true, needsCheck: false });
  return task;
}

describe("side effects and needs_check", () => {
  test("an expiry after a recorded side effect: reclaimed as needs_check, start needs the check confirmed", async () => {
    const task = await startedWithSideEffect("expiry-check");
    f.clock.advance(121);

    const taken = await f.must(claimNext, { queue: "expiry-check" }, bilal);
    expect(taken).toMatchObject({ id: task.id, status: "claimed", needsCheck: true, version: 5 });
    expect(await taskRow(f.db, task.id)).toMatchObject({
      status: "claimed", ownerId: bilal.id, needsCheck: true, sideEffectRecorded: false, version: 5,
    });
    const expired = (await eventsOf(f.db, task.id)).find((e) => e.type === "lease_expired")!;
    expect(expired.payload).toMatchObject({ needsCheck: true, previousOwnerId: amal.id, version: 4 });

    // Nothing repeats the side effect on its own: a plain start is refused and writes nothing.
    failure(await f.run(start, { taskId: task.id, version: 5 }, bilal), "check_required");
    expect(await taskRow(f.db, task.id)).toMatchObject({ status: "claimed", needsCheck: true, version: 5 });

    await f.must(start, { taskId: task.id, version: 5, confirmCheck: true }, bilal);
    expect(await taskRow(f.db, task.id)).toMatchObject({ status: "started", needsCheck: false, version: 6 });
    const events = await eventsOf(f.db, task.id);
    expect(events.map((e) => e.type)).toEqual([
      "created", "claimed", "started", "side_effect", "lease_expired", "claimed", "check_confirmed", "started",
    ]);
    expect(events.slice(-2).map((e) => [e.actorId, (e.payload as { version: number }).version])).toEqual([
      [bilal.id, 6],
      [bilal.id, 6],
    ]);
  });

  test("claim-next with start: true on a needs_check task claims it but does not start it", async () => {
    const task = await startedWithSideEffect("no-auto-start");
    f.clock.advance(121);

    const taken = await f.must(claimNext, { queue: "no-auto-start", start: true }, bilal);
    expect(taken).toMatchObject({ id: task.id, status: "claimed", needsCheck: true });
    expect(await taskRow(f.db, task.id)).toMatchObject({ status: "claimed", ownerId: bilal.id, needsCheck: true, version: 5 });
    expect(await eventTypes(f.db, task.id)).toEqual([
      "created", "claimed", "started", "side_effect", "lease_expired", "claimed",
    ]);
  });

  test("a swept needs_check task stays needs_check through a later claim-next with start: true", async () => {
    const task = await startedWithSideEffect("swept-check");
    f.clock.advance(121 + 300); // and past the person grace, which the sweep honours
    await f.must(sweepExpiredLeases, { queue: "swept-check" }, bilal);
    expect(await taskRow(f.db, task.id)).toMatchObject({ status: "queued", needsCheck: true, ownerId: null });

    const taken = await f.must(claimNext, { queue: "swept-check", start: true }, bilal);
    expect(taken).toMatchObject({ id: task.id, status: "claimed", needsCheck: true });
    failure(await f.run(start, { taskId: task.id, version: 5 }, bilal), "check_required");
  });

  test("releasing after a side effect leaves the task needs_check for the next claimant", async () => {
    const task = await startedWithSideEffect("release-check");
    await f.must(release, { taskId: task.id, version: 3 }, amal);
    expect(await taskRow(f.db, task.id)).toMatchObject({
      status: "queued", ownerId: null, needsCheck: true, sideEffectRecorded: false, version: 4,
    });
    const released = (await eventsOf(f.db, task.id)).at(-1)!;
    expect(released).toMatchObject({ type: "released", payload: { version: 4, needsCheck: true } });
  });

  test("skipNeedsCheck leaves needs_check tasks (queued, or lapsed after a side effect) to claimers who confirm", async () => {
    const released = await startedWithSideEffect("skip-check");
    await f.must(release, { taskId: released.id, version: 3 }, amal);
    const lapsed = await startedWithSideEffect("skip-check");
    const plain = await f.task("plain", { queue: "skip-check", priority: -1 });
    f.clock.advance(121);

    // Both needs_check candidates rank above the plain task, yet only it is handed out.
    expect(await f.must(claimNext, { queue: "skip-check", skipNeedsCheck: true }, bilal)).toMatchObject({ id: plain.id });
    expect(await f.must(claimNext, { queue: "skip-check", skipNeedsCheck: true }, bilal)).toBeNull();
    expect(await taskRow(f.db, lapsed.id)).toMatchObject({ status: "started", ownerId: amal.id, sideEffectRecorded: true });

    const taken = [await f.must(claimNext, { queue: "skip-check" }, bilal), await f.must(claimNext, { queue: "skip-check" }, bilal)];
    expect(taken.map((t) => [t!.id, t!.needsCheck]).sort()).toEqual([[released.id, true], [lapsed.id, true]].sort());
  });

  test("only the owner may record a side effect", async () => {
    const task = await f.task("owned", { queue: "side-owner" });
    await f.must(claim, { taskId: task.id, version: 1 }, amal);
    failure(await f.run(recordSideEffect, { taskId: task.id, version: 2, description: "x" }, bilal), "not_owner");
    expect(await taskRow(f.db, task.id)).toMatchObject({ sideEffectRecorded: false, version: 2 });
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed"]);
  });
});
