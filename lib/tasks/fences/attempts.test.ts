import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  claim, claimBatch, claimNext, failTask, forceRelease, release, requeue, start, sweepExpiredLeases, taskReadiness, verifyFence,
  type ActorRef, type Task,
} from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { failure, taskRow } from "@/test/inspect";
import { foldEvents } from "@/lib/tasks/reads/fold";
import { eventsOf } from "@/test/inspect";
import { makeFence, openFence, readFenceKey } from "./fence";

// Issue 22, item 1: a per-task attempt number taken by every new holding and never reused,
// fences that name task + attempt and cannot be forged, and the queue's lock delay.

let f: EngineFixture;
let amal: ActorRef;
let bilal: ActorRef;
let sara: ActorRef;
let key: Buffer;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal", "agent");
  bilal = await f.actor("Bilal", "agent");
  sara = await f.actor("Sara");
  key = await readFenceKey(f.db);
});
afterAll(async () => {
  await f?.close();
});

const fenceOf = (task: Task) => makeFence(key, task.id, task.attempt);
const verify = async (fence: string) => f.must(verifyFence, { fence }, sara);

describe("attempts", () => {
  test("every new holding takes attempt + 1: release, lapse (lazy and swept), force-release, fail, requeue — never a number twice", async () => {
    const queue = await f.queue("attempts", { maxFailures: 1 });
    const task = await f.task("numbered", { queue });
    expect(task.attempt).toBe(0);
    const seen: number[] = [];
    const take = async (got: Task) => (seen.push(got.attempt), got);

    // 1: claimed and released.
    let held = await take(await f.must(claim, { taskId: task.id, version: task.version }, amal));
    let after = await f.must(release, { taskId: task.id, version: held.version }, amal);
    expect(after.attempt).toBe(held.attempt); // the number stays the last holding's until the next claim
    // 2: claimed next, then lapses; 3: a claim takes it over lazily.
    held = await take((await f.must(claimNext, { queue }, amal))!);
    f.clock.advance(600);
    held = await take((await f.must(claimNext, { queue }, bilal))!);
    // 3 lapses and is swept (materialised); 4: a targeted claim of the queued task.
    f.clock.advance(600);
    await f.must(sweepExpiredLeases, { queue }, sara);
    after = (await f.must(claim, { taskId: task.id, version: (await taskRow(f.db, task.id)).version }, amal));
    held = await take(after);
    // 4 force-released by a supervisor; 5: batch claim.
    after = await f.must(forceRelease, { taskId: task.id, version: held.version }, sara);
    held = await take((await f.must(claimBatch, { queue, limit: 5 }, bilal))[0]!);
    // 5 fails on the last strike (escalated), a supervisor requeues; 6: claimed again.
    after = await f.must(failTask, { taskId: task.id, version: held.version, reason: "broken" }, bilal);
    expect(after.status).toBe("escalated");
    after = await f.must(requeue, { taskId: task.id, version: after.version }, sara);
    expect(after.attempt).toBe(5); // a requeue starts no holding
    held = await take(await f.must(claim, { taskId: task.id, version: after.version }, amal));

    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await taskRow(f.db, task.id)).attempt).toBe(6);
    // The fold replays the number from the log.
    expect(foldEvents(await eventsOf(f.db, task.id)).attempt).toBe(6);
  });
});

describe("fences", () => {
  test("a fence names task and attempt; a forged, altered or truncated one does not open", async () => {
    const task = await f.must(claim, { taskId: (await f.task("f", { queue: "fences" })).id, version: 1 }, amal);
    const fence = fenceOf(task);
    expect(fence).toMatch(new RegExp(`^cbf_${task.id}_1_[A-Za-z0-9_-]{43}$`));
    expect(openFence(key, fence)).toEqual({ taskId: task.id, attempt: 1 });
    const forged = [
      fence.slice(0, -1), // truncated
      fence.replace(`_1_`, `_2_`), // another attempt, same MAC
      fence.replace(`cbf_${task.id}_`, `cbf_${BigInt(task.id) + 1n}_`), // another task
      makeFence(Buffer.from("not the server's secret"), task.id, 1),
      "", "cbf_", "hello",
    ];
    for (const bad of forged) {
      expect(openFence(key, bad), bad).toBeNull();
      const refused = failure(await f.run(verifyFence, { fence: bad }, sara), "invalid_request");
      expect(refused.field).toBe("fence");
    }
  });

  test("verify says current, then why not: lapsed, superseded, released, finished", async () => {
    const queue = await f.queue("verify");
    const created = await f.task("v", { queue });
    const first = await f.must(claim, { taskId: created.id, version: 1 }, amal);
    expect(await verify(fenceOf(first))).toEqual({
      current: true, taskId: created.id, attempt: 1, currentAttempt: 1, status: "claimed", reason: "current",
    });
    f.clock.advance(121); // the queue's lease is 120 s
    expect(await verify(fenceOf(first))).toMatchObject({ current: false, reason: "lapsed", status: "claimed" });
    await f.must(sweepExpiredLeases, { queue }, sara);
    expect(await verify(fenceOf(first))).toMatchObject({ current: false, reason: "lapsed", status: "queued" });

    const second = (await f.must(claimNext, { queue }, bilal))!;
    expect(await verify(fenceOf(first))).toMatchObject({ current: false, reason: "superseded", attempt: 1, currentAttempt: 2 });
    expect(await verify(fenceOf(second))).toMatchObject({ current: true, reason: "current" });
    const released = await f.must(release, { taskId: created.id, version: second.version }, bilal);
    expect(await verify(fenceOf(second))).toMatchObject({ current: false, reason: "released", status: "queued" });

    const third = await f.must(claim, { taskId: created.id, version: released.version }, amal);
    const failed = await f.must(failTask, { taskId: created.id, version: third.version, reason: "no" }, amal);
    expect(failed.status).toBe("queued");
    expect(await verify(fenceOf(third))).toMatchObject({ current: false, reason: "released" });

    const fourth = await f.must(claim, { taskId: created.id, version: (await taskRow(f.db, created.id)).version }, amal);
    await f.must(start, { taskId: created.id, version: fourth.version }, amal);
    const { complete } = await import("@/lib/tasks");
    await f.must(complete, { taskId: created.id, version: fourth.version + 1 }, amal);
    expect(await verify(fenceOf(fourth))).toMatchObject({ current: false, reason: "finished", status: "done" });
  });

  test("a well-signed fence for an attempt the task never reached is refused like a forgery", async () => {
    const task = await f.task("never", { queue: "fences" });
    for (const attempt of [0, 1, 7]) {
      expect(failure(await f.run(verifyFence, { fence: makeFence(key, task.id, attempt) }, sara), "invalid_request").field).toBe("fence");
    }
  });
});

describe("lock delay", () => {
  test("a lapsed task is held back exactly lockDelaySeconds: claim-next, targeted claim and readiness agree", async () => {
    const queue = await f.queue("delayed", { leaseSeconds: 30, lockDelaySeconds: 60 });
    const task = await f.task("slow downstream", { queue });
    const held = await f.must(claim, { taskId: task.id, version: 1 }, amal);
    const lapsedAt = held.leaseUntil!.getTime();

    f.clock.set(new Date(lapsedAt + 59_999)); // lapsed, inside the delay
    expect(await f.must(claimNext, { queue }, bilal)).toBeNull();
    const refused = failure(await f.run(claim, { taskId: task.id, version: held.version }, bilal), "not_ready");
    expect(refused.message).toMatch(/lock delay/);
    const readiness = await f.must(taskReadiness, { taskId: task.id }, bilal);
    expect(readiness.claimable).toBe(false);
    expect(readiness.reasons.map((r) => r.code)).toEqual(["lock_delay"]);
    expect(readiness.claimableAt!.getTime()).toBe(lapsedAt + 60_000);
    await f.must(sweepExpiredLeases, { queue }, sara);
    expect((await taskRow(f.db, task.id)).status).toBe("claimed"); // the sweep waits out the delay too

    f.clock.set(new Date(lapsedAt + 60_000)); // exactly the delay
    expect((await f.must(taskReadiness, { taskId: task.id }, bilal)).claimable).toBe(true);
    const taken = (await f.must(claimNext, { queue }, bilal))!;
    expect(taken).toMatchObject({ id: task.id, attempt: 2, owner: { id: bilal.id } });
  });

  test("a clean release has no delay", async () => {
    const queue = await f.queue("delayed-release", { leaseSeconds: 30, lockDelaySeconds: 600 });
    const task = await f.task("given back", { queue });
    const held = await f.must(claim, { taskId: task.id, version: 1 }, amal);
    await f.must(release, { taskId: task.id, version: held.version }, amal);
    expect((await f.must(claimNext, { queue }, bilal))?.id).toBe(task.id);
  });
});
