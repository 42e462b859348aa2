import { sql } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { readQueueState, reclaimBudget, type QueueState } from "./breaker";
import { CANDIDATE_COLUMNS, claimRows } from "./claim-rows";
import type { Clock } from "../core/clock";
import { defineOperation } from "../core/engine";
import { DEFAULT_QUEUE, refuseNewWork, unknownQueueIn } from "../queues/queues";
import { claimBatchInput, claimNextInput } from "../core/schemas";
import { toTasks } from "../core/task-row";
import { fail, ok, type ActorRef, type Result, type Task } from "../core/types";
import { claimantRefusal } from "./claimants";
import { strikeCappedLapses } from "./ceiling";
import { WORKERS } from "../core/standing";
import { lapseCutoff } from "./lock-delay";
import { lockReservations, reservationFilter } from "../reservations/held";

// The partial indexes' predicates (db/schema/tasks.ts), which a query must repeat to use them.
const READY_QUEUED = sql.raw(`status = 'queued' AND blocked_by = '{}'::bigint[] AND not_before IS NULL`);
const READY_SCHEDULED = sql.raw(`status = 'queued' AND blocked_by = '{}'::bigint[] AND not_before IS NOT NULL`);

/**
 * A claim's LIMIT written into the statement, not bound: bound, the prepared statement's
 * generic plan is costed for an unknown LIMIT and never wins over a custom plan, so every
 * claim was planned afresh (the loop's SQL from pgbench: 371 tasks/s bound, 609 written in,
 * docs/performance.md), and a lapsed set with LIMIT 0 is planned away only when the 0 is
 * in the text. The values are bounded integers (a batch is 1..100), so a connection
 * prepares a few texts, not one per call.
 */
function limitLiteral(n: number) {
  if (!Number.isInteger(n) || n < 0 || n > 1000) throw new Error(`claim limit out of range: ${n}`);
  return sql.raw(String(n));
}

/**
 * Hands out the best `limit` claimable tasks of a queue without waiting on any row another
 * claimer holds (FOR UPDATE SKIP LOCKED). Queued tasks and tasks with a lapsed lease are two
 * sets, each walked in claim order by its own partial index — never one OR predicate, which
 * turns into a bitmap scan and a sort — and the best `limit` of both are claimed.
 */
export async function claimBest(
  tx: Tx,
  clock: Clock,
  actor: ActorRef,
  input: { queue?: string; leaseSeconds?: number; start?: boolean; skipNeedsCheck?: boolean },
  limit: number,
  instance?: string,
  /** The queue's state when the caller already asked for it (see completeAndClaimNext). */
  queueState?: Promise<QueueState | null>,
): Promise<Result<Task[]>> {
  const name = input.queue ?? DEFAULT_QUEUE;
  const state = await (queueState ?? readQueueState(tx, name, clock, actor.id));
  if (!state) return fail(await unknownQueueIn(tx, name));
  const closed = refuseNewWork(name, state.queue);
  if (closed) return fail(closed);
  // Who may claim is the queue's rule: checked once here, never per candidate row.
  const refused = claimantRefusal(state.queue, actor);
  if (refused) return fail(refused);
  if (state.queue.paused) return ok([]); // paused: owners finish what they hold, nobody takes more
  if (state.overBudget) return ok([]); // an agent over its monthly cap is handed nothing (docs/budgets.md)
  // Lapses of attempts that met their ceiling are strikes, not plain reclaims: settle them first.
  if (state.hasExpired) await strikeCappedLapses(tx, clock, state.queue);
  const expiredLimit = Math.min(limit, await reclaimBudget(tx, state, clock));
  const queue = state.queue.name;
  // The queue's lock delay: a lapsed lease is claimable only that long after it ran out.
  const lapsedBy = lapseCutoff(clock, state.queue.lockDelaySeconds);
  // A lapsed attempt that recorded a side effect comes back needs_check too.
  const checkFilter = input.skipNeedsCheck ? sql`AND NOT needs_check` : sql``;
  const lapsedCheckFilter = input.skipNeedsCheck ? sql`AND NOT (needs_check OR side_effect_recorded)` : sql``;
  // Tasks that reserve are walked only under the reservations lock, and only while free (lib/tasks/reservations).
  if (state.hasReserving) await lockReservations(tx);
  const reserved = reservationFilter(state.hasReserving, clock);
  const [take, takeLapsed] = [limitLiteral(limit), limitLiteral(expiredLimit)];

  const candidates = sql`
    WITH queued AS MATERIALIZED (
      -- tasks_queued_order holds only unblocked tasks with no notBefore (the predicate below
      -- is the index's, word for word), so the walk never steps over a blocked or waiting row.
      SELECT ${CANDIDATE_COLUMNS} FROM tasks
      WHERE queue = ${queue} AND ${READY_QUEUED} ${checkFilter} ${reserved}
      ORDER BY priority DESC, created_at, id
      LIMIT ${take}
      FOR UPDATE SKIP LOCKED
    ), due AS MATERIALIZED (
      -- Scheduled and backed-off tasks, walked by tasks_scheduled in not_before order: a range
      -- read that stops at the first not-yet-due row or at the limit, however many still wait.
      SELECT ${CANDIDATE_COLUMNS} FROM tasks
      WHERE queue = ${queue} AND ${READY_SCHEDULED} AND not_before <= ${clock.now()} ${checkFilter} ${reserved}
      ORDER BY not_before
      LIMIT ${take}
      FOR UPDATE SKIP LOCKED
    ), lapsed AS MATERIALIZED (
      -- "(…) IS TRUE" keeps this a walk of tasks_held_order in claim order that stops at the
      -- limit: offered tasks_held_lease, the planner may fetch every lapsed lease and sort
      -- them (220 ms for a batch in a 25,000-lease storm, against 0.4 ms for the walk).
      SELECT ${CANDIDATE_COLUMNS} FROM tasks
      WHERE queue = ${queue} AND status IN ('claimed', 'started') AND (lease_until <= ${lapsedBy}) IS TRUE ${lapsedCheckFilter} ${reserved}
      ORDER BY priority DESC, created_at, id
      LIMIT ${takeLapsed}
      FOR UPDATE SKIP LOCKED
    )
    SELECT * FROM (SELECT * FROM queued UNION ALL SELECT * FROM due UNION ALL SELECT * FROM lapsed) candidate_sets
    ORDER BY priority DESC, created_at, id
    LIMIT ${take}`;

  const claimed = await claimRows(tx, clock, candidates, { actor, leaseSeconds: input.leaseSeconds, start: input.start, instance });
  return ok(await toTasks(tx, claimed.map((c) => c.row), actor));
}

/** Claim the next task of a queue (and start it, when asked and no check is needed); null when none. */
export const claimNext = defineOperation({
  name: "claimNext",
  who: WORKERS,
  input: claimNextInput,
  async run(tx, input, { actor, clock, instance }) {
    const claimed = await claimBest(tx, clock, actor, input, 1, instance);
    return claimed.ok ? ok(claimed.value[0] ?? null) : claimed;
  },
});

/** Claim up to `limit` (1..100) tasks in one transaction, for agents that work in batches. */
export const claimBatch = defineOperation({
  name: "claimBatch",
  who: WORKERS,
  input: claimBatchInput,
  async run(tx, input, { actor, clock, instance }) {
    return claimBest(tx, clock, actor, input, input.limit, instance);
  },
});
