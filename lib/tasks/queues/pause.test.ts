import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  claim, claimBatch, claimNext, complete, readTaskReadiness, setQueuePaused, start, type ActorRef,
} from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { failure, queueEvents, queueRow } from "@/test/inspect";

let f: EngineFixture;
let amal: ActorRef;
let sara: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  sara = await f.actor("Sara");
});
afterAll(async () => {
  await f?.close();
});

describe("paused queue", () => {
  test("claims hand out nothing, owners finish what they hold, and both changes are events naming who", async () => {
    const queue = "pausable";
    const held = await f.task("held", { queue });
    const waiting = await f.task("waiting", { queue });
    const claimed = await f.must(claim, { taskId: held.id, version: 1 }, amal);

    await f.must(setQueuePaused, { queue, paused: true }, sara);
    await f.must(setQueuePaused, { queue, paused: true }, sara); // already paused: nothing written
    expect(await queueRow(f.db, queue)).toMatchObject({ paused: true, pausedBy: sara.id });
    expect(await f.must(claimNext, { queue }, amal)).toBeNull();
    expect(await f.must(claimBatch, { queue, limit: 10 }, amal)).toEqual([]);
    const refused = failure(await f.run(claim, { taskId: waiting.id, version: 1 }, amal), "queue_paused");
    expect(refused.message).toMatch(/paused by Sara/);
    expect(await readTaskReadiness(f.db, f.clock, waiting.id, amal)).toMatchObject({
      claimable: false, claimableAt: null, reasons: [{ code: "queue_paused" }],
    });
    // A lapsed lease is not reclaimed either.
    f.clock.advance(121);
    failure(await f.run(claim, { taskId: held.id, version: claimed.version }, amal), "queue_paused");
    f.clock.advance(-121);

    const started = await f.must(start, { taskId: held.id, version: claimed.version }, amal);
    await f.must(complete, { taskId: held.id, version: started.version }, amal);

    await f.must(setQueuePaused, { queue, paused: false }, sara);
    expect(await f.must(claimNext, { queue }, amal)).toMatchObject({ id: waiting.id });
    const facts = (await queueEvents(f.db, queue)).filter((e) => e.taskId === null);
    expect(facts.map((e) => [e.type, e.actorId])).toEqual([["queue_paused", sara.id], ["queue_resumed", sara.id]]);
  });
});

describe("readiness", () => {
  test("says every reason, in words, and agrees with the claim", async () => {
    const queue = "ready";
    const agent = await f.actor("agent-2", "agent");
    const dep = await f.task("dep", { queue });
    await f.must(start, { taskId: dep.id, version: (await f.must(claim, { taskId: dep.id, version: 1 }, agent)).version }, agent);
    const later = new Date(f.clock.time.getTime() + 60_000);
    const task = await f.task("child", { queue, dependsOn: [dep.id], notBefore: later.toISOString() });
    const readiness = await readTaskReadiness(f.db, f.clock, task.id, amal);
    expect(readiness).toEqual({
      claimable: false, claimableAt: null,
      reasons: [
        { code: "blocked", message: `Waiting for #${dep.id} (started by agent-2)` },
        { code: "not_before", message: `Not before ${later.toISOString()}` },
      ],
    });
    expect(await readTaskReadiness(f.db, f.clock, dep.id, amal)).toMatchObject({
      claimable: false, reasons: [{ code: "held", message: expect.stringMatching(/^Started by agent-2; the lease runs until /) }],
    });
    expect(await readTaskReadiness(f.db, f.clock, dep.id, agent)).toMatchObject({ reasons: [{ message: expect.stringMatching(/^Started by you/) }] });
    expect(await readTaskReadiness(f.db, f.clock, "999999", amal)).toBeNull();
  });
});
