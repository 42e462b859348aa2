import { afterAll, beforeAll, expect, test } from "vitest";
import { createTask, resetBreaker, setQueueSettings } from "@/lib/tasks";
import type { RunningAgent } from "@/test/cli";
import { heldSetDrift, queuedSetDrift, queueEvents, queueRow } from "@/test/inspect";
import { expectLogEqualsTable, rig, waitFor, type Rig } from "./harness";
import { makeQueue } from "@/test/queues";

// Fault 7: an expiry storm. A fleet claims 300 tasks and vanishes; their leases lapse at
// once. Four reference agents reclaim them until the breaker trips at the queue's
// threshold (200 expiries in the window); while it is tripped nothing more is reclaimed;
// a supervisor's reset resumes reclaiming and the rest is done.

const TASKS = 300;
const THRESHOLD = 200;
const AGENTS = 4;

let r: Rig;
beforeAll(async () => {
  r = await rig();
});
afterAll(async () => {
  await r?.close();
});

const count = async (queue: string, status: string) =>
  (await r.database.client`SELECT count(*)::int AS n FROM tasks WHERE queue = ${queue} AND status = ${status}`)[0]!.n as number;

test("fault 7: hundreds of leases lapsing at once trip the breaker at the threshold; a supervisor reset resumes reclaiming", async () => {
  const queue = await makeQueue(r.database.db, "storm");
  await r.as(setQueueSettings, { queue, leaseSeconds: 5, expiryThreshold: THRESHOLD, expiryWindowSeconds: 300 });
  for (let i = 0; i < TASKS; i++) await r.as(createTask, { title: `storm ${i}`, queue });
  const fleet = r.client(await r.token("vanished-fleet"));
  let held = 0;
  while (held < TASKS) held += (await fleet.claimBatch({ queue, limit: 100, leaseSeconds: 5 })).length;
  expect(await count(queue, "claimed")).toBe(TASKS);
  await waitFor(async () => (await r.database.client`
    SELECT bool_and(lease_until <= now()) AS lapsed FROM tasks WHERE queue = ${queue}`)[0]!.lapsed === true, "every lease to lapse");

  const lapsedAt = performance.now();
  const agents: RunningAgent[] = [];
  for (let i = 0; i < AGENTS; i++) {
    agents.push(r.agent(await r.token(`storm-agent-${i}`), ["--queue", queue, "--work-ms", "0", "--lease-seconds", "60"]));
  }
  await waitFor(async () => (await queueEvents(r.database.db, queue, "breaker_tripped")).length > 0, "the breaker to trip", 120_000, 200);
  const trippedMs = performance.now() - lapsedAt;
  // Every agent has since been told there is nothing to claim: reclaiming has stopped.
  const marks = agents.map((a) => a.output().length);
  await waitFor(() => agents.every((a, i) => /^nothing to claim in storm/m.test(a.output().slice(marks[i]))), "every agent to find nothing to claim", 60_000);

  const expiries = (await queueEvents(r.database.db, queue, "lease_expired")).length;
  // The threshold, overshot at most by what the other agents reclaimed in the same instant (docs/design.md#the-breaker).
  expect(expiries).toBeGreaterThanOrEqual(THRESHOLD);
  expect(expiries).toBeLessThanOrEqual(THRESHOLD + AGENTS - 1);
  const trips = await queueEvents(r.database.db, queue, "breaker_tripped");
  expect(trips).toMatchObject([{ taskId: null, payload: { cause: "expiry_spike", threshold: THRESHOLD } }]);
  expect((await queueRow(r.database.db, queue)).breakerTrippedAt).not.toBeNull();
  expect(await count(queue, "claimed")).toBe(TASKS - expiries); // still the vanished fleet's, lapsed, untouched
  expect(await count(queue, "done")).toBe(expiries);

  const reset = await r.as(resetBreaker, { queue });
  expect(reset.breakerTrippedAt).toBeNull();
  const resetAt = performance.now();
  await waitFor(async () => (await count(queue, "done")) === TASKS, `all ${TASKS} tasks done after the reset`, 120_000, 200);
  const drainedMs = performance.now() - resetAt;
  for (const a of agents) {
    a.process.kill("SIGTERM");
    expect(await a.exited, a.output()).toBe(0);
  }
  expect(await queueEvents(r.database.db, queue, "lease_expired")).toHaveLength(TASKS);
  expect(await queueEvents(r.database.db, queue, "breaker_tripped")).toHaveLength(1);
  await expectLogEqualsTable(r.database.db, queue);
  // The held and claimable sets (migrations 0028, 0029), written by their triggers through the lapses, strikes and reclaims above.
  expect(await heldSetDrift(r.database.db)).toEqual({ missing: 0, extra: 0, stale: 0 });
  expect(await queuedSetDrift(r.database.db)).toEqual({ missing: 0, extra: 0, stale: 0 });
  console.log(
    `[fault 7] ${TASKS} leases lapsed at once, threshold ${THRESHOLD} in 300 s, ${AGENTS} agents: breaker tripped (expiry_spike) ` +
      `after ${expiries} expiries, ${Math.round(trippedMs)} ms after the agents started; reclaimed while tripped: 0; ` +
      `after the supervisor reset the other ${TASKS - expiries} were reclaimed and all ${TASKS} done in ${Math.round(drainedMs)} ms`,
  );
});
