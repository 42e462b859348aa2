import { sql, type SQL } from "drizzle-orm";
import type { Executor, Tx } from "@/db/client";
import type { Queue, TaskStatus } from "@/db/schema";
import { instanceOf } from "../core/attempt";
import type { Clock } from "../core/clock";
import { appendEvents, SYSTEM_ACTOR_ID, type NewEvent } from "../core/events";
import { loadTask, rawToTaskRow, withContent } from "../core/task-row";
import { lapseEvent, lapsedOf, lapseReturning, lapseSet } from "../core/lapse";
import { ownerTransition, recheck, statusIn } from "../core/transition";
import { HELD } from "../core/machine";
import { lapseCutoff } from "./lock-delay";
import { strikeStatus } from "../core/strike";
import { effectsLeftUnknown } from "../effects/ledger";
import { fail, type ActorRef, type Result, type Task } from "../core/types";

// The attempt ceiling (queue setting maxAttemptSeconds). A heartbeat may not carry a
// lease past claimed_at + the ceiling: it is refused (409 attempt_limit, the lease stays
// as it is) and the attempt is marked attempt_limited, once, with an event. When that
// attempt's lease lapses, the lapse is a strike like a failure — so an agent that renews
// forever without finishing ends in the supervisors' inbox instead of holding the task.

/** Guard for a renewal (t = the task, q = its queue): the renewed lease stays within the ceiling. */
export const withinCeiling = (now: SQL) => sql`
  (q.max_attempt_seconds IS NULL OR t.claimed_at IS NULL
   OR ${now} + make_interval(secs => t.lease_seconds) <= t.claimed_at + make_interval(secs => q.max_attempt_seconds))`;

/** The renewal's own guard: a refusal at the ceiling is a renewal the ceiling alone stopped. */
const renewing = ownerTransition("renew");

/**
 * After a renewal changed nothing: was the ceiling what stopped it? Then mark the attempt
 * (the first time) and answer attempt_limit; null when something else is the reason.
 */
export async function refuseAtCeiling(
  tx: Tx,
  clock: Clock,
  input: { taskId: string; version: number },
  actor: ActorRef,
  instance?: string,
): Promise<Result<Task> | null> {
  const now = clock.now();
  const [row] = await tx.execute<{ attempt_limited: boolean; ceiling: string; max: number; queue: string; status: TaskStatus }>(sql`
    SELECT t.attempt_limited, t.status, t.queue, q.max_attempt_seconds AS max,
           to_char((t.claimed_at + make_interval(secs => q.max_attempt_seconds)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ceiling
    FROM task_state t JOIN queues q ON q.name = t.queue
    WHERE t.id = ${input.taskId}::bigint AND ${renewing.guard(actor, input.version, now, sql`NOT ${withinCeiling(now)}`)}
    FOR UPDATE OF t`);
  if (!row) return null;
  if (!row.attempt_limited) {
    await tx.execute(sql`UPDATE task_state SET attempt_limited = true, updated_at = ${now} WHERE id = ${input.taskId}::bigint`);
    await appendEvents(tx, clock, [{
      taskId: BigInt(input.taskId), queue: row.queue, type: "attempt_limit_reached", actorId: actor.id,
      payload: { version: input.version, status: row.status, ceiling: row.ceiling, maxAttemptSeconds: Number(row.max), ...instanceOf(instance) },
    }]);
  }
  const task = (await loadTask(tx, input.taskId))!;
  return fail({
    code: "attempt_limit",
    message: `Task ${task.id} has reached its attempt ceiling: queue ${task.queue} allows ${row.max} s per attempt (until ${row.ceiling}), ` +
      `so the lease was not extended; finish, release or fail it before ${task.leaseUntil?.toISOString()} — its lapse counts as a failure`,
    task,
  });
}

/**
 * Lapses of attempts that met their ceiling, materialised as strikes: → queued with
 * failure_count + 1, or escalated on the queue's last strike, with lease_expired, failed
 * (and escalated) events by the system. Run by a claim before it walks the queue, and by
 * the sweep, so the walk never hands such a lapse out as a plain one. `taskId` narrows it
 * to one task (a targeted claim). Returns the ids it struck.
 */
export async function strikeCappedLapses(tx: Executor, clock: Clock, queue: Queue, taskId?: string): Promise<string[]> {
  // The flag is the fact: a ceiling lifted since still makes that attempt's lapse a strike.
  if (queue.breakerTrippedAt) return [];
  const now = clock.now();
  const one = taskId ? sql`AND lease.id = ${taskId}::bigint` : sql``;
  const cutoff = lapseCutoff(clock, queue.lockDelaySeconds);
  const rows = await tx.execute<Record<string, unknown>>(withContent(sql`
    WITH capped AS MATERIALIZED (
      -- Found in the held set's leases (task_lease_attempt_limited), locked and rechecked on task_state (recheck, claim-rows.ts).
      SELECT s.id, s.owner_id, s.progress, s.progress_at, s.side_effect_recorded
      FROM task_lease lease JOIN task_state s ON s.id = lease.id
      WHERE lease.queue = ${queue.name} AND lease.attempt_limited AND lease.lease_until <= ${cutoff} ${one}
        AND ${recheck(sql`s.attempt_limited AND ${statusIn(HELD, "s")} AND s.lease_until <= ${cutoff}`)}
      ORDER BY lease.lease_until
      LIMIT 100
      FOR UPDATE OF s SKIP LOCKED
    )
    UPDATE task_state t SET
      ${lapseSet(strikeStatus, "c", now)},
      failure_count = t.failure_count + 1
    FROM capped c, queues q
    WHERE t.id = c.id AND q.name = t.queue
    RETURNING t.*, ${lapseReturning("c")}`));
  const ceiling = queue.maxAttemptSeconds === null ? "" : ` of ${queue.maxAttemptSeconds} s`;
  const reason = `the attempt reached the queue's ceiling${ceiling} and its lease lapsed`;
  const events = rows.flatMap((raw): NewEvent[] => {
    const row = rawToTaskRow(raw);
    const by = { taskId: row.id, queue: row.queue, actorId: SYSTEM_ACTOR_ID };
    const struck = { version: row.version, status: row.status, needsCheck: row.needsCheck, reason, failureCount: row.failureCount };
    const lapse = lapseEvent(row, { ...lapsedOf(raw, row.version), strike: true });
    const failed: NewEvent = { ...by, type: "failed", payload: { ...struck, attemptLimit: true } };
    return row.status === "escalated" ? [lapse, failed, { ...by, type: "escalated", payload: struck }] : [lapse, failed];
  });
  const unknown = await effectsLeftUnknown(tx, rows.filter((raw) => raw.lapsed_effects === true).map((raw) => rawToTaskRow(raw)));
  await appendEvents(tx, clock, [...events, ...unknown]);
  return rows.map((raw) => String(raw.id));
}
