import { sql } from "drizzle-orm";
import type { Db, Tx } from "@/db/client";
import type { ScheduleRow } from "@/db/schema";
import { actsFor, authorityEnded, pauseEndedAuthority } from "@/lib/auth/authority";
import { createTaskOnce, databaseClock, type Clock, appendEvents, SYSTEM_ACTOR_ID } from "@/lib/tasks";
import { FINISHED, type ActorRef } from "@/lib/tasks/model";
import { nextOccurrence, occurrencesBetween } from "./cron";
import { clockNow, type ScheduledTask } from "./ops";

// A tick: the due schedules, each taken with FOR UPDATE SKIP LOCKED so instances share them
// without waiting; every occurrence's task is an idempotent create keyed by schedule and
// occurrence, so even two ticks that both reached one occurrence make one task.

/** An occurrence this late when handled was missed: no instance ran at its time. */
export const GRACE_SECONDS = 120;
const SYSTEM: ActorRef = { id: SYSTEM_ACTOR_ID, name: "system", kind: "system" };

/** The idempotency key of an occurrence's task (docs/contract.md#recurring-work). */
export const occurrenceKey = (scheduleId: string, occurrence: Date) => `schedule:${scheduleId}:${occurrence.toISOString()}`;

type Outcome = { kind: "created" | "backfilled"; taskId: string } | { kind: "skipped"; reason: "overlap" | "missed" };

async function previousUnfinished(tx: Tx, row: ScheduleRow): Promise<string | null> {
  if (row.overlap !== "skip" || row.lastTaskId === null) return null;
  const [task] = await tx.execute<{ status: string }>(sql`SELECT status FROM tasks WHERE id = ${row.lastTaskId.toString()}::bigint`);
  return task && !(FINISHED as readonly string[]).includes(task.status) ? row.lastTaskId.toString() : null;
}

async function skipped(tx: Tx, clock: Clock, row: ScheduleRow, occurrence: Date, reason: "overlap" | "missed", more: { previousTaskId?: string; missed?: number }): Promise<Outcome> {
  await appendEvents(tx, clock, [{
    taskId: null, queue: row.queue, actorId: SYSTEM_ACTOR_ID, type: "schedule_skipped",
    payload: { scheduleId: row.id, schedule: row.name, occurrence: occurrence.toISOString(), reason, ...more },
  }]);
  return { kind: "skipped", reason };
}

/** One occurrence's task (or the reason it has none). */
async function occur(tx: Tx, clock: Clock, row: ScheduleRow, occurrence: Date, backfill?: { missed: number }): Promise<Outcome> {
  const previous = await previousUnfinished(tx, row);
  if (previous) return skipped(tx, clock, row, occurrence, "overlap", { previousTaskId: previous });
  const task = row.task as ScheduledTask;
  const input = createTaskOnce.input.parse({
    ...task, queue: row.queue, idempotencyKey: occurrenceKey(row.id, occurrence),
    payload: { ...(task.payload ?? {}), _schedule: { id: row.id, occurrence: occurrence.toISOString(), ...(backfill ? { backfilled: true, missed: backfill.missed } : {}) } },
  });
  const made = await createTaskOnce.run(tx, input, { actor: SYSTEM, clock });
  if (!made.ok) throw new Error(`schedule ${row.name}: ${made.error.message}`);
  row.lastTaskId = BigInt(made.value.task.id); // the next occurrence of this tick checks this one
  return { kind: backfill ? "backfilled" : "created", taskId: made.value.task.id };
}

async function handle(tx: Tx, clock: Clock, row: ScheduleRow, now: Date): Promise<void> {
  const { list, more } = occurrencesBetween(row.cron, row.timezone, row.nextAt!, now);
  const onTime = list.filter((at) => now.getTime() - at.getTime() <= GRACE_SECONDS * 1000).slice(-1);
  const missed = list.slice(0, list.length - onTime.length);
  let last: { at: Date; outcome: Outcome } | null = null;
  if (missed.length > 0) {
    const latest = missed.at(-1)!;
    const count = missed.length + (more ? 1 : 0);
    const outcome = row.missed === "once" ? await occur(tx, clock, row, latest, { missed: count }) : await skipped(tx, clock, row, latest, "missed", { missed: count });
    last = { at: latest, outcome };
  }
  for (const at of onTime) last = { at, outcome: await occur(tx, clock, row, at) };
  const after = new Date(Math.max(now.getTime(), last?.at.getTime() ?? 0));
  await tx.execute(sql`
    UPDATE schedules SET next_at = ${nextOccurrence(row.cron, row.timezone, after).toISOString()}::timestamptz,
      last_at = coalesce(${last?.at.toISOString() ?? null}::timestamptz, last_at),
      last_result = coalesce(${last ? JSON.stringify(last.outcome) : null}::jsonb, last_result),
      last_task_id = ${row.lastTaskId?.toString() ?? null}::bigint
    WHERE id = ${row.id}::uuid`);
}

/** Handles the schedules due now (at most `limit`), in one transaction; how many it handled. */
export async function runDueSchedules(db: Db, options: { clock?: Clock; limit?: number } = {}): Promise<number> {
  const clock = options.clock ?? databaseClock;
  return db.transaction(async (tx) => {
    const now = await clockNow(tx, clock);
    // Expiries and anything else that ended an authority without a transaction marking it.
    await pauseEndedAuthority(tx);
    const due = await tx.execute<Record<string, unknown>>(sql`
      SELECT * FROM schedules s
      WHERE deleted_at IS NULL AND NOT paused AND next_at <= ${now.toISOString()}::timestamptz
        AND authority_ended_at IS NULL AND ${authorityEnded(actsFor("s"))} IS NULL
      ORDER BY next_at
      LIMIT ${options.limit ?? 20}
      FOR UPDATE SKIP LOCKED`);
    for (const raw of due) {
      const row = fromRaw(raw);
      // Each schedule in a savepoint: one that cannot make its task (its queue archived since,
      // say) says why on /schedules and moves on, never holding the others back.
      await tx.transaction((inner) => handle(inner, clock, row, now)).catch((error: unknown) => failed(tx, row, now, error));
    }
    return due.length;
  });
}

async function failed(tx: Tx, row: ScheduleRow, now: Date, error: unknown): Promise<void> {
  const reason = error instanceof Error ? error.message : String(error);
  await tx.execute(sql`
    UPDATE schedules SET next_at = ${nextOccurrence(row.cron, row.timezone, now).toISOString()}::timestamptz,
      last_at = ${now.toISOString()}::timestamptz, last_result = ${JSON.stringify({ kind: "failed", reason })}::jsonb
    WHERE id = ${row.id}::uuid`);
}

function fromRaw(raw: Record<string, unknown>): ScheduleRow {
  const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));
  return {
    id: raw.id as string, name: raw.name as string, cron: raw.cron as string, timezone: raw.timezone as string,
    queue: raw.queue as string, task: raw.task, overlap: raw.overlap as string, missed: raw.missed as string,
    paused: Boolean(raw.paused), nextAt: date(raw.next_at), lastAt: date(raw.last_at), lastResult: raw.last_result ?? null,
    lastTaskId: raw.last_task_id === null ? null : BigInt(raw.last_task_id as string),
    createdBy: raw.created_by as string, createdAt: date(raw.created_at)!, updatedAt: date(raw.updated_at)!, deletedAt: date(raw.deleted_at),
    adoptedBy: (raw.adopted_by as string | null) ?? null, adoptedAt: date(raw.adopted_at),
    authorityEndedAt: date(raw.authority_ended_at), authorityEndedReason: (raw.authority_ended_reason as string | null) ?? null,
  };
}
