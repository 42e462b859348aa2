import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, claimBatch, claimNext, createTask, failTask, readTaskReadiness, requeue, setQueueSettings, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf, failure, rowCounts, taskRow } from "@/test/inspect";

let f: EngineFixture;
let amal: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
});
afterAll(async () => {
  await f?.close();
});

const inSeconds = (s: number) => new Date(f.clock.time.getTime() + s * 1000);

describe("notBefore", () => {
  test("a scheduled task is not handed out until it is due, whatever its rank; then it competes at its rank", async () => {
    const queue = "scheduled";
    const later = await f.task("later", { queue, priority: 9, notBefore: inSeconds(3600).toISOString() });
    const now = await f.task("now", { queue, priority: 1 });
    expect(later.notBefore).toEqual(inSeconds(3600));

    expect(await f.must(claimBatch, { queue, limit: 5 }, amal)).toMatchObject([{ id: now.id }]);
    const refused = failure(await f.run(claim, { taskId: later.id, version: 1 }, amal), "not_ready");
    expect(refused.message).toContain(`Not before ${inSeconds(3600).toISOString()}`);
    expect(await readTaskReadiness(f.db, f.clock, later.id, amal)).toEqual({
      claimable: false, claimableAt: inSeconds(3600), reasons: [{ code: "not_before", message: `Not before ${inSeconds(3600).toISOString()}` }],
    });

    const also = await f.task("also due", { queue, priority: 5 });
    f.clock.advance(3600);
    expect(await readTaskReadiness(f.db, f.clock, later.id, amal)).toEqual({ claimable: true, claimableAt: null, reasons: [] });
    // Due now: it outranks the plain task of priority 5, and the claim clears notBefore.
    expect(await f.must(claimNext, { queue }, amal)).toMatchObject({ id: later.id, notBefore: null });
    expect(await f.must(claimNext, { queue }, amal)).toMatchObject({ id: also.id });
  });

  test("a notBefore that is not a time is refused naming the field, and nothing is written", async () => {
    const counts = await rowCounts(f.db);
    for (const notBefore of ["tomorrow", "2026-13-01T00:00:00Z", "1700000000"]) {
      expect(failure(await f.run(createTask, { title: "x", notBefore }, amal), "invalid_request").field).toBe("notBefore");
    }
    expect(await rowCounts(f.db)).toEqual(counts);
  });
});

describe("retry backoff", () => {
  test("a failure that requeues waits retryDelaySeconds × 2^(failureCount − 1); a supervisor's requeue waits for nothing", async () => {
    const queue = await f.queue("backoff");
    await f.must(setQueueSettings, { queue, retryDelaySeconds: 30, maxFailures: 4 }, amal);
    const task = await f.task("flaky", { queue });
    let version = 1;
    for (const [strike, delay] of [[1, 30], [2, 60], [3, 120]] as const) {
      const claimed = await f.must(claimNext, { queue }, amal);
      expect(claimed?.id).toBe(task.id);
      const failed = await f.must(failTask, { taskId: task.id, version: claimed!.version, reason: `strike ${strike}` }, amal);
      expect(failed).toMatchObject({ status: "queued", failureCount: strike, notBefore: inSeconds(delay) });
      expect((await eventsOf(f.db, task.id)).at(-1)).toMatchObject({ type: "failed", payload: { notBefore: inSeconds(delay).toISOString() } });
      expect(await f.must(claimNext, { queue }, amal)).toBeNull();
      f.clock.advance(delay - 1);
      expect(await f.must(claimNext, { queue }, amal)).toBeNull();
      f.clock.advance(1);
      version = failed.version;
    }
    const last = await f.must(claimNext, { queue }, amal);
    const escalated = await f.must(failTask, { taskId: task.id, version: last!.version, reason: "strike 4" }, amal);
    expect(escalated).toMatchObject({ status: "escalated", notBefore: null });
    const back = await f.must(requeue, { taskId: task.id, version: escalated.version }, amal);
    expect(back).toMatchObject({ status: "queued", failureCount: 0, notBefore: null });
    expect(version).toBeGreaterThan(1);
    expect(await f.must(claimNext, { queue }, amal)).toMatchObject({ id: task.id });
  });

  test("without a retry delay (the default) a failed task is claimable at once", async () => {
    const queue = "no-backoff";
    const task = await f.task("flaky", { queue });
    const claimed = await f.must(claimNext, { queue }, amal);
    await f.must(failTask, { taskId: task.id, version: claimed!.version, reason: "x" }, amal);
    expect((await taskRow(f.db, task.id)).notBefore).toBeNull();
    expect(await f.must(claimNext, { queue }, amal)).toMatchObject({ id: task.id });
  });
});
