import { sql } from "drizzle-orm";
import { lapsedFor } from "./person-grace";
import type { Tx } from "@/db/client";
import { archivedQueue, getQueue } from "../queues/queues";
import { explainUnready } from "./readiness";
import { readyForClaim } from "./ready";
import { admittingClaimants, claimantRefusal } from "./claimants";
import { strikeCappedLapses } from "./ceiling";
import { CANDIDATE_COLUMNS, claimRows } from "./claim-rows";
import { statusIn } from "../core/transition";
import type { Clock } from "../core/clock";
import { HELD, leaseLapsed, notFound } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { appendEvents } from "../core/events";
import { claimInput, type ClaimInput } from "../core/schemas";
import { loadTask } from "../core/task-row";
import { holderTasks } from "../holding/unread";
import { fail, ok, type ActorRef, type Result, type Task } from "../core/types";
import { lockReservationsOf, reservationFilter } from "../reservations/held";
import { overMonthlyCap } from "../budgets/cap";

/**
 * A targeted claim waits at most this long for a row another transaction holds, then
 * answers busy: a racing claim commits in milliseconds, so waiting briefly turns most
 * collisions into a definite answer (who won) rather than a retry.
 */
export const TARGETED_CLAIM_LOCK_TIMEOUT_MS = 1000;

/** Claim one given task: queued, or held with a lapsed lease; the expected version must match. */
export const claim = defineOperation({
  name: "claim",
  makes: ["claim"],
  input: claimInput,
  async run(tx, input, { actor, clock, instance }) {
    await tx.execute(sql.raw(`SET LOCAL lock_timeout = '${TARGETED_CLAIM_LOCK_TIMEOUT_MS}ms'`));
    // A task that reserves is claimed under the reservations lock, and only while free.
    const reserved = reservationFilter(await lockReservationsOf(tx, input.taskId), clock);
    const attempt = async (version: number) => {
      const candidates = sql`
        SELECT ${CANDIDATE_COLUMNS} FROM task_state
        WHERE id = ${input.taskId}::bigint AND version = ${version}
          AND EXISTS (SELECT 1 FROM queues WHERE queues.name = task_state.queue AND claimants IN ${admittingClaimants(actor)}
                        AND archived_at IS NULL)
          AND (status = 'queued'
               OR (${statusIn(HELD, "")} AND lease_until <= ${clock.now()}
                   AND NOT attempt_limited
                   AND NOT EXISTS (SELECT 1 FROM queues
                                   WHERE queues.name = task_state.queue
                                     AND (breaker_tripped_at IS NOT NULL
                                          OR task_state.lease_until + make_interval(secs => queues.lock_delay_seconds) > ${clock.now()}))
                   ${lapsedFor(actor, clock)}))
          ${readyForClaim(clock)} ${reserved} AND NOT ${overMonthlyCap(actor.id, clock.now())}
        FOR UPDATE OF task_state`;
      return (await claimRows(tx, clock, candidates, { actor, instance }))[0];
    };
    const claimed = (await attempt(input.version)) ?? (await afterStrike(tx, clock, input, actor, attempt));
    if (claimed) return ok((await holderTasks(tx, [claimed], actor))[0]!);
    return explainLostClaim(tx, clock, input, actor);
  },
});

/**
 * A lapsed attempt that met its ceiling is struck (a failure) before anyone claims it. The
 * claimer named the lapsed attempt's version; the strike is the lapse a reclaim writes
 * anyway, so when it leaves the task queued the claim goes on at the version after it.
 */
async function afterStrike<T>(tx: Tx, clock: Clock, input: ClaimInput, actor: ActorRef, attempt: (version: number) => Promise<T>) {
  const task = await loadTask(tx, input.taskId);
  if (!task || task.version !== input.version || !HELD.includes(task.status)) return undefined;
  const queue = await getQueue(tx, task.queue);
  if (!queue || claimantRefusal(queue, actor)) return undefined;
  const struck = await strikeCappedLapses(tx, clock, queue, input.taskId);
  return struck.length > 0 ? attempt(input.version + 1) : undefined;
}

async function explainLostClaim(tx: Tx, clock: Clock, input: ClaimInput, actor: ActorRef): Promise<Result<Task>> {
  const task = await loadTask(tx, input.taskId);
  if (!task) return notFound(input.taskId);
  const queue = (await getQueue(tx, task.queue))!;
  const refused = claimantRefusal(queue, actor, task);
  if (refused) return fail(refused);
  const mine = task.owner?.id === actor.id;
  const held = HELD.includes(task.status);
  const lapsed = held && (await leaseLapsed(tx, clock, task));

  if (held && mine && !lapsed && task.version > input.version) return ok(task); // a retry that took effect
  // An archived queue's tasks are claimed by nobody new; what is held can still be finished.
  if (queue.archivedAt && (task.status === "queued" || lapsed)) return fail({ ...archivedQueue(task.queue), task });
  if (held && !lapsed) {
    await rejectClaim(tx, clock, task, actor, input.version);
    const by = mine ? "you" : task.owner!.name;
    return fail({ code: "already_claimed", message: `Task ${task.id} is ${task.status} by ${by} (version ${task.version})`, task });
  }
  if (held && lapsed) {
    const queue = await getQueue(tx, task.queue);
    if (queue?.breakerTrippedAt) {
      return fail({
        code: "invalid_transition",
        message: `Task ${task.id}'s lease lapsed, but queue ${task.queue}'s breaker is tripped (${queue.breakerReason}); a supervisor must reset it`,
        task,
      });
    }
  }
  if (task.status !== "queued" && !held) {
    return fail({ code: "invalid_transition", message: `Task ${task.id} is ${task.status} (version ${task.version}): cannot claim it`, task });
  }
  const unready = await explainUnready(tx, clock, task, actor);
  if (unready) return fail(unready);
  await rejectClaim(tx, clock, task, actor, input.version);
  return fail({
    code: "version_conflict",
    message: `Task ${task.id} is at version ${task.version}, not ${input.version}`,
    task,
  });
}

/** A targeted claim that lost is a fact of the log too. */
async function rejectClaim(tx: Tx, clock: Clock, task: Task, actor: ActorRef, expectedVersion: number) {
  await appendEvents(tx, clock, [
    {
      taskId: BigInt(task.id),
      queue: task.queue,
      type: "claim_rejected",
      actorId: actor.id,
      payload: { version: task.version, expectedVersion, ownerId: task.owner?.id ?? null, status: task.status },
    },
  ]);
}
