import { and, asc, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { actors, taskEvents } from "@/db/schema";
import { createTask, setQueueSettings } from "@/lib/tasks";
import { taskRow } from "@/test/inspect";
import { refusal, rig, type Rig } from "./harness";
import { makeQueue } from "@/test/queues";

// Fault 1: kill -9 a reference agent right after it claims, and separately right after it
// recorded a side effect. The next claim after the lease reclaims the task (needs_check
// where a side effect was recorded); the dead agent's token completing later gets 409.

let r: Rig;
beforeAll(async () => {
  r = await rig();
});
afterEach(async () => {
  await r?.killAgents();
});
afterAll(async () => {
  await r?.close();
});

/** A task's history as "type actor" lines, heartbeats left out (their number depends on timing). */
async function history(id: string): Promise<string[]> {
  const rows = await r.database.db
    .select({ type: taskEvents.type, name: actors.name })
    .from(taskEvents)
    .innerJoin(actors, eq(actors.id, taskEvents.actorId))
    .where(eq(taskEvents.taskId, BigInt(id)))
    .orderBy(asc(taskEvents.id));
  return rows.filter((e) => e.type !== "heartbeat").map((e) => `${e.type} ${e.name}`);
}

/** Database-clock ms between the end of the dead agent's last lease and the lease_expired event. */
async function reclaimDelayMs(id: string, deadActorId: string): Promise<number> {
  const events = await r.database.db.select().from(taskEvents).where(eq(taskEvents.taskId, BigInt(id))).orderBy(asc(taskEvents.id));
  const leases = events
    .filter((e) => e.actorId === deadActorId && (e.type === "claimed" || e.type === "heartbeat"))
    .map((e) => Date.parse((e.payload as { leaseUntil: string }).leaseUntil));
  const expired = events.find((e) => e.type === "lease_expired")!;
  const leaseEnd = Math.max(...leases);
  // Correctness, not timing: nobody took the task while the dead agent's lease ran.
  expect(expired.createdAt.getTime()).toBeGreaterThanOrEqual(leaseEnd);
  return expired.createdAt.getTime() - leaseEnd;
}

describe("fault 1: an agent killed with SIGKILL", () => {
  test.each([
    { when: "right after it claims", sideEffect: false },
    { when: "right after it recorded a side effect", sideEffect: true },
  ])("$when: reclaimed by the next claim after the lease; the dead token's complete gets 409", async ({ sideEffect }) => {
    const queue = await makeQueue(r.database.db, sideEffect ? "crash-side-effect" : "crash-claim");
    await r.as(setQueueSettings, { queue, leaseSeconds: 5 });
    const { id } = await r.as(createTask, { title: `survive a crash ${queue}`, queue });
    const deadToken = await r.token(`dead-${queue}`);
    const dead = r.agent(deadToken, ["--queue", queue, "--work-ms", "600000"]);
    const [, version] = (await dead.waitFor(new RegExp(`^claimed ${id} v(\\d+) `, "m")))!;
    if (sideEffect) {
      // The agent's own identity says an external action began (the reference agent has no such step of its own).
      await r.client(deadToken).recordSideEffect({ id, version: Number(version) }, "began charging the card");
    }
    dead.process.kill("SIGKILL");
    await dead.exited;
    const killedAt = performance.now();
    expect(await taskRow(r.database.db, id)).toMatchObject({ status: "started", sideEffectRecorded: sideEffect });

    const nextToken = await r.token(`next-${queue}`);
    const next = r.agent(nextToken, ["--queue", queue, "--work-ms", "100", "--max-tasks", "1", ...(sideEffect ? ["--confirm-checks"] : [])]);
    const [claimedLine] = (await next.waitFor(new RegExp(`^claimed ${id} .*$`, "m"), 60_000))!;
    const seenAfterMs = performance.now() - killedAt;
    expect(await next.exited, next.output()).toBe(0);

    expect(claimedLine).toMatch(sideEffect ? /\(claimed, needs_check\)$/ : /\(started\)$/);
    const lapse = await r.database.db.select().from(taskEvents)
      .where(and(eq(taskEvents.taskId, BigInt(id)), eq(taskEvents.type, "lease_expired")));
    expect(lapse).toHaveLength(1);
    expect(lapse[0]!.payload).toMatchObject({ needsCheck: sideEffect, previousOwnerId: expect.any(String) });
    // The servers' lapse clock may announce the lapse (`lapsed`: no state change) before the
    // waiting next agent takes the task over, or the takeover may come first: once at most.
    const events = await history(id);
    expect(events.filter((e) => e === "lapsed system").length).toBeLessThanOrEqual(1);
    expect(events.filter((e) => e !== "lapsed system")).toEqual([
      // A claim with start is one event (started: true); a check owed makes the start its own.
      "created Operator", `claimed dead-${queue}`,
      ...(sideEffect ? [`side_effect dead-${queue}`] : []),
      "lease_expired system", `claimed next-${queue}`,
      ...(sideEffect ? [`check_confirmed next-${queue}`, `started next-${queue}`] : []),
      `completed next-${queue}`,
    ]);
    const done = await taskRow(r.database.db, id);
    expect(done).toMatchObject({ status: "done", needsCheck: false });

    // The dead agent's token, later, with the version it held: refused, and nothing written.
    const late = await refusal(r.client(deadToken).complete({ id, version: Number(version) }));
    expect(late.status, late.message).toBe(409);
    expect(await taskRow(r.database.db, id)).toEqual(done);

    const delay = await reclaimDelayMs(id, (lapse[0]!.payload as { previousOwnerId: string }).previousOwnerId);
    console.log(
      `[fault 1] kill -9 ${sideEffect ? "after a side effect" : "after a claim"}: reclaimed ${delay} ms after the lease ended ` +
        `(database clock; 5 s lease; the next agent waits on its claim), seen ${Math.round(seenAfterMs)} ms after the kill; ` +
        `needs_check=${sideEffect}; late complete by the dead token: ${late.status} ${late.code}`,
    );
  });
});
