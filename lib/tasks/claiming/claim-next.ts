import { sql, type SQL } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { lapsedLeaseIn, readQueueState, reclaimBudget, reservingTaskIn } from "./breaker";
import { candidateColumnsOf, claimRows, claimRowsGated } from "./claim-rows";
import { recheck, statusIn } from "../core/transition";
import { HELD } from "../core/machine";
import type { Clock } from "../core/clock";
import { defineOperation } from "../core/engine";
import { DEFAULT_QUEUE, refuseNewWork, unknownQueueIn } from "../queues/queues";
import { claimBatchInput, claimNextInput } from "../core/schemas";
import { holderTasks } from "../holding/unread";
import { fail, ok, type ActorRef, type Result, type Task } from "../core/types";
import { admittingClaimants, claimantRefusal } from "./claimants";
import { strikeCappedLapses } from "./ceiling";
import { lapseCutoff } from "./lock-delay";
import { lapsedFor } from "./person-grace";
import { lockReservations, reservationFilter } from "../reservations/held";
import { overMonthlyCap } from "../budgets/cap";

const WAITS_ON_NOTHING = sql.raw(`task_state.status = 'queued' AND task_state.blocked_by = '{}'::bigint[]`);

/**
 * A claim's LIMIT written into the statement, not bound: bound, the prepared statement's
 * generic plan is costed for an unknown LIMIT and never wins over a custom plan, so every
 * claim was planned afresh (the loop's SQL from pgbench: 371 tasks/s bound, 609 written in,
 * CHANGELOG.md), and a lapsed set with LIMIT 0 is planned away only when the 0 is
 * in the text. The values are bounded integers (a batch is 1..100), so a connection
 * prepares a few texts, not one per call.
 */
function limitLiteral(n: number) {
  if (!Number.isInteger(n) || n < 0 || n > 1000) throw new Error(`claim limit out of range: ${n}`);
  return sql.raw(String(n));
}

/**
 * The queue admits this claimer and asks nothing of a claim but the walk: it exists, is open
 * and not paused, admits the claimer's kind, and has no lapsed lease to settle or reclaim, no
 * task that reserves, and the claimer is not over its monthly cap. Evaluated in the claim's
 * own statement (claimRowsGated): the agent loop's claim costs one statement, not a read of
 * the queue's state and then a claim. Where it is false the claim takes claimBest's longer
 * way, which reads the state and applies the rules (claimants, archive, pause, budget, the
 * breaker, reservations) — this only says that none of them has anything to do.
 */
const plainQueue = (name: string, actor: ActorRef, now: SQL) => sql`EXISTS (
  SELECT 1 FROM queues q
  WHERE q.name = ${name} AND q.archived_at IS NULL AND NOT q.paused AND q.claimants IN ${admittingClaimants(actor)}
    AND NOT ${lapsedLeaseIn(now)} AND NOT ${reservingTaskIn} AND NOT ${overMonthlyCap(actor.id, now)})`;

/** This transaction wrote the task (its row's xmin is this transaction's id). */
const writtenHere = (taskId: string) => sql`EXISTS (SELECT 1 FROM task_state WHERE id = ${taskId}::bigint AND xmin = pg_current_xact_id()::xid)`;

/**
 * The claim walks of a queue: queued tasks, due tasks, and tasks with a lapsed lease, each
 * walked in its own order by its own partial index — never one OR predicate, which turns into
 * a bitmap scan and a sort — and the best `take` of the three sets.
 */
function candidateSets(queue: string, clock: Clock, sets: { take: number; takeLapsed: number; lapsedBy: SQL; skipNeedsCheck?: boolean; also: SQL; lapsedAlso?: SQL }): SQL {
  // A lapsed attempt that recorded a side effect comes back needs_check too.
  const checkFilter = sets.skipNeedsCheck ? sql`AND NOT needs_check` : sql``;
  const lapsedCheckFilter = sets.skipNeedsCheck ? sql`AND NOT (needs_check OR side_effect_recorded)` : sql``;
  const [take, takeLapsed] = [limitLiteral(sets.take), limitLiteral(sets.takeLapsed)];
  return sql`
    WITH queued AS MATERIALIZED (
      -- The claimable set (task_queued): its task_queued_order holds only tasks that wait on
      -- nothing, with no notBefore, so the walk never steps over a blocked or waiting row.
      SELECT ${candidateColumnsOf("task_state")} FROM task_queued ready JOIN task_state ON task_state.id = ready.id
      WHERE ready.queue = ${queue} AND ready.not_before IS NULL
        AND ${recheck(sql`${WAITS_ON_NOTHING} AND task_state.not_before IS NULL`)} ${checkFilter} ${sets.also}
      ORDER BY ready.priority DESC, ready.created_at, ready.id
      LIMIT ${take}
      FOR UPDATE OF task_state SKIP LOCKED
    ), due AS MATERIALIZED (
      -- Scheduled and backed-off tasks, walked by task_queued_scheduled in not_before order: a
      -- range read that stops at the first not-yet-due row or at the limit, however many wait.
      SELECT ${candidateColumnsOf("task_state")} FROM task_queued ready JOIN task_state ON task_state.id = ready.id
      WHERE ready.queue = ${queue} AND ready.not_before IS NOT NULL AND ready.not_before <= ${clock.now()}
        AND ${recheck(sql`${WAITS_ON_NOTHING} AND task_state.not_before <= ${clock.now()}`)} ${checkFilter} ${sets.also}
      ORDER BY ready.not_before
      LIMIT ${take}
      FOR UPDATE OF task_state SKIP LOCKED
    ), lapsed AS MATERIALIZED (
      -- The held set (task_held) in claim order, each lease read from task_lease by key: "(…) IS
      -- TRUE" keeps this a walk of task_held_order that stops at the limit: offered
      -- task_lease_until, the planner may fetch every lapsed lease and sort them (220 ms for a
      -- batch in a 25,000-lease storm, against 0.4 ms for the walk).
      SELECT ${candidateColumnsOf("task_state")}
      FROM task_held held JOIN task_lease lease ON lease.id = held.id JOIN task_state ON task_state.id = held.id
      WHERE held.queue = ${queue} AND (lease.lease_until <= ${sets.lapsedBy}) IS TRUE
        AND ${recheck(sql`${statusIn(HELD, "task_state")} AND task_state.lease_until <= ${sets.lapsedBy}`)}
        ${lapsedCheckFilter} ${sets.also} ${sets.lapsedAlso ?? sql``}
      ORDER BY held.priority DESC, held.created_at, held.id
      LIMIT ${takeLapsed}
      FOR UPDATE OF task_state SKIP LOCKED
    )
    SELECT * FROM (SELECT * FROM queued UNION ALL SELECT * FROM due UNION ALL SELECT * FROM lapsed) candidate_sets
    ORDER BY priority DESC, created_at, id
    LIMIT ${take}`;
}

/**
 * Hands out the best `limit` claimable tasks of a queue without waiting on any row another
 * claimer holds (FOR UPDATE SKIP LOCKED). In a plain queue (plainQueue) that is one
 * statement; otherwise the queue's state is read and its rules applied first.
 */
export async function claimBest(
  tx: Tx,
  clock: Clock,
  actor: ActorRef,
  input: { queue?: string; leaseSeconds?: number; start?: boolean; skipNeedsCheck?: boolean },
  limit: number,
  instance?: string,
  /**
   * The agent loop's claim, sent behind the completion of `taskId` in the same round trip
   * (completeAndClaimNext): it claims only if this transaction itself wrote that task — so a
   * refused or replayed completion claims nothing — and nothing at all unless `completed`
   * says the completion took effect.
   */
  after?: { taskId: string; completed: Promise<boolean> },
): Promise<Result<Task[]>> {
  const name = input.queue ?? DEFAULT_QUEUE;
  const options = { actor, leaseSeconds: input.leaseSeconds, start: input.start, instance };
  // No lapsed set (a plain queue has no lapsed lease) and no task that reserves (it has none).
  const plain = candidateSets(name, clock, {
    take: limit, takeLapsed: 0, lapsedBy: clock.now(), skipNeedsCheck: input.skipNeedsCheck, also: reservationFilter(false, clock),
  });
  const plainGate = plainQueue(name, actor, clock.now());
  const gate = after ? sql`${plainGate} AND ${writtenHere(after.taskId)}` : plainGate;
  const gated = await claimRowsGated(tx, clock, gate, plain, options, after?.completed);
  if (after && !(await after.completed)) {
    // Its gate was shut (this transaction wrote no completion), so nothing can have been claimed.
    if (gated.claimed.length > 0) throw new Error("claimed behind a completion that did not take effect");
    return ok([]);
  }
  if (gated.open) return ok(await holderTasks(tx, gated.claimed, actor));

  const state = await readQueueState(tx, name, clock, actor.id);
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
  // Tasks that reserve are walked only under the reservations lock, and only while free (lib/tasks/reservations).
  if (state.hasReserving) await lockReservations(tx);
  const candidates = candidateSets(state.queue.name, clock, {
    take: limit, takeLapsed: expiredLimit,
    // The queue's lock delay: a lapsed lease is claimable only that long after it ran out.
    lapsedBy: lapseCutoff(clock, state.queue.lockDelaySeconds),
    skipNeedsCheck: input.skipNeedsCheck, also: reservationFilter(state.hasReserving, clock),
    // An agent steps over a person's lapsed lease inside the queue's personGraceSeconds.
    lapsedAlso: lapsedFor(actor, clock),
  });
  const claimed = await claimRows(tx, clock, candidates, options);
  return ok(await holderTasks(tx, claimed, actor));
}

/** Claim the next task of a queue (and start it, when asked and no check is needed); null when none. */
export const claimNext = defineOperation({
  name: "claimNext",
  makes: ["claim"],
  input: claimNextInput,
  async run(tx, input, { actor, clock, instance }) {
    const claimed = await claimBest(tx, clock, actor, input, 1, instance);
    return claimed.ok ? ok(claimed.value[0] ?? null) : claimed;
  },
});

/** Claim up to `limit` (1..100) tasks in one transaction, for agents that work in batches. */
export const claimBatch = defineOperation({
  name: "claimBatch",
  makes: ["claim"],
  input: claimBatchInput,
  async run(tx, input, { actor, clock, instance }) {
    return claimBest(tx, clock, actor, input, input.limit, instance);
  },
});
