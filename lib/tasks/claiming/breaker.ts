import { and, eq, isNotNull, isNull, sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { queues, type Queue } from "@/db/schema";
import type { Clock } from "../core/clock";
import { defineOperation } from "../core/engine";
import { appendEvents, SYSTEM_ACTOR_ID } from "../core/events";
import { queueInput } from "../core/schemas";
import { fail, ok } from "../core/types";
import { SUPERVISORS } from "../core/standing";
import { overMonthlyCap } from "../budgets/cap";
import { executePrepared, typedRow } from "@/db/hot-path";
import { CLAIMABLE, HELD } from "../core/machine";
import { statusIn } from "../core/transition";

/** Events this far ahead of the database clock mean the clock went backwards. */
export const CLOCK_TOLERANCE_SECONDS = 5;

export interface QueueState {
  queue: Queue;
  /** Some held task of this queue has a lapsed lease. */
  hasExpired: boolean;
  /** Some unfinished task of this queue reserves something: its claims take the reservations lock. */
  hasReserving: boolean;
  /** The claimer (when named) is an agent over its monthly cap: claim-next hands it nothing. */
  overBudget: boolean;
}

/**
 * Some held task of the queue `q` has a lapsed lease: one probe of task_lease_until. The held
 * set's leases are written in the transaction that writes the task, so this snapshot sees them agree.
 */
export const lapsedLeaseIn = (now: SQL) => sql`EXISTS (
  SELECT 1 FROM task_lease lease
  WHERE lease.queue = q.name AND lease.lease_until <= ${now})`;

/**
 * Some unfinished task of the queue `q` reserves something: a probe of tasks_reserving, which
 * holds only such tasks, keyed on their reserving_status (null for a task that reserves nothing).
 */
export const reservingTaskIn = sql`EXISTS (
  SELECT 1 FROM task_state t
  WHERE ${statusIn([...CLAIMABLE, ...HELD], "t", "reserving_status")} AND t.queue = q.name)`;

/**
 * The queue's settings and whether any lease in it has lapsed. A prepared statement of its
 * own (executePrepared), parsed and planned once a connection. claim-next asks for it only
 * when its one-statement claim found the queue other than plain (claim-next.ts, plainQueue).
 */
export async function readQueueState(tx: Executor, name: string, clock: Clock, claimerId?: string): Promise<QueueState | null> {
  const [raw] = await executePrepared<Record<string, unknown>>(tx, sql`
    SELECT q.*,
      ${lapsedLeaseIn(clock.now())} AS has_expired_lease,
      -- Whether a claim here may take reservations.
      ${reservingTaskIn} AS has_reserving_task,
      -- A probe of agent_tokens_capped, which holds only capped tokens (lib/tasks/budgets/cap.ts).
      ${claimerId ? overMonthlyCap(claimerId, clock.now()) : sql`false`} AS claimer_over_budget
    FROM queues q
    WHERE q.name = ${name}`);
  if (!raw) return null;
  return {
    queue: typedRow(queues, raw),
    hasExpired: raw.has_expired_lease === true,
    hasReserving: raw.has_reserving_task === true,
    overBudget: raw.claimer_over_budget === true,
  };
}

/**
 * How many lapsed leases this transaction may reclaim in the queue: the stop conditions
 * of docs/design.md#the-breaker. Trips the breaker (once, with an event) when the expiries of the window
 * have reached the threshold or the database clock is seen to have moved backwards.
 * Concurrent reclaimers may each use the same budget, so a burst can overshoot the
 * threshold by what they reclaim at the same instant.
 */
export async function reclaimBudget(tx: Executor, state: QueueState, clock: Clock): Promise<number> {
  const { queue } = state;
  if (queue.breakerTrippedAt || !state.hasExpired) return 0;
  const [stats] = await tx.execute<{ recent_expiries: number; clock_behind: boolean }>(sql`
    SELECT
      (SELECT count(*)::int FROM task_events
        WHERE queue = ${queue.name} AND type = 'lease_expired'
          AND created_at > ${clock.now()} - make_interval(secs => ${queue.expiryWindowSeconds})
          AND id > ${queue.breakerResetEventId.toString()}::bigint) AS recent_expiries,
      -- The log's events dated ahead of the clock, one block range of task_events_time (none,
      -- unless the clock went back), then this queue's among them after the reset. OFFSET 0
      -- keeps the queue's conditions out of that scan: pushed in, the planner ANDs in a bitmap
      -- of every event of the queue (task_events_queue_feed).
      EXISTS (SELECT 1 FROM (SELECT queue, id FROM task_events
          WHERE created_at > ${clock.now()} + make_interval(secs => ${CLOCK_TOLERANCE_SECONDS}) OFFSET 0) ahead
        WHERE ahead.queue = ${queue.name} AND ahead.id > ${queue.breakerResetEventId.toString()}::bigint) AS clock_behind`);
  const recent = Number(stats?.recent_expiries ?? 0);
  if (stats?.clock_behind) {
    await tripBreaker(tx, clock, queue.name, "clock_backwards",
      "the database clock is behind the newest recorded event: it moved backwards", {});
    return 0;
  }
  const budget = queue.expiryThreshold - recent;
  if (budget <= 0) {
    await tripExpirySpike(tx, clock, queue, recent);
    return 0;
  }
  return budget;
}

export async function tripExpirySpike(tx: Executor, clock: Clock, queue: Queue, expiries: number): Promise<void> {
  await tripBreaker(tx, clock, queue.name, "expiry_spike",
    `${expiries} lease expiries within ${queue.expiryWindowSeconds} s reached the threshold of ${queue.expiryThreshold}`,
    { expiries, threshold: queue.expiryThreshold, windowSeconds: queue.expiryWindowSeconds });
}

async function tripBreaker(
  tx: Executor,
  clock: Clock,
  queue: string,
  cause: "expiry_spike" | "clock_backwards",
  reason: string,
  details: Record<string, unknown>,
): Promise<void> {
  const tripped = await tx
    .update(queues)
    .set({ breakerTrippedAt: clock.now(), breakerReason: reason, updatedAt: clock.now() })
    .where(and(eq(queues.name, queue), isNull(queues.breakerTrippedAt)))
    .returning({ name: queues.name });
  if (tripped.length === 0) return; // someone else tripped it first
  await appendEvents(tx, clock, [
    { taskId: null, queue, type: "breaker_tripped", actorId: SYSTEM_ACTOR_ID, payload: { cause, reason, ...details } },
  ]);
}

/** Supervisor: close the breaker again; expiries and clock readings before the reset no longer count. */
export const resetBreaker = defineOperation({
  name: "resetBreaker",
  who: SUPERVISORS,
  input: queueInput,
  async run(tx, input, { actor, clock }) {
    const reset = await tx
      .update(queues)
      .set({
        breakerTrippedAt: null,
        breakerReason: null,
        // The newest id handed out (the log has no index by id alone: CHANGELOG.md).
        breakerResetEventId: sql`(SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM task_events_id_seq)`,
        updatedAt: clock.now(),
      })
      .where(and(eq(queues.name, input.queue), isNotNull(queues.breakerTrippedAt)))
      .returning();
    if (reset.length === 0) {
      return fail({ code: "invalid_transition", message: `The breaker of queue ${input.queue} is not tripped` });
    }
    await appendEvents(tx, clock, [
      { taskId: null, queue: input.queue, type: "breaker_reset", actorId: actor.id, payload: {} },
    ]);
    return ok(reset[0]!);
  },
});
