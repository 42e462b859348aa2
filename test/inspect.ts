import { and, asc, count, eq, sql } from "drizzle-orm";
import { expect } from "vitest";
import type { Executor } from "@/db/client";
import { queues, taskEvents, tasks, type EventType, type Queue, type TaskEventRow, type TaskRow } from "@/db/schema";
import type { EngineError, EngineErrorCode, Result } from "@/lib/tasks";

// Read-backs for assertions: tests check what the database holds, not what a call returned.

export async function taskRow(db: Executor, id: string | bigint): Promise<TaskRow> {
  const [row] = await db.select().from(tasks).where(eq(tasks.id, BigInt(id)));
  if (!row) throw new Error(`no task ${id}`);
  return row;
}

export async function queueRow(db: Executor, name: string): Promise<Queue> {
  const [row] = await db.select().from(queues).where(eq(queues.name, name));
  if (!row) throw new Error(`no queue ${name}`);
  return row;
}

/** A task's events, oldest first. */
export async function eventsOf(db: Executor, taskId: string | bigint): Promise<TaskEventRow[]> {
  return db.select().from(taskEvents).where(eq(taskEvents.taskId, BigInt(taskId))).orderBy(asc(taskEvents.id));
}

export async function eventTypes(db: Executor, taskId: string | bigint): Promise<EventType[]> {
  return (await eventsOf(db, taskId)).map((e) => e.type);
}

/** Every event of a queue (task-level and queue-level), oldest first; optionally one type only. */
export async function queueEvents(db: Executor, queue: string, type?: EventType): Promise<TaskEventRow[]> {
  const where = type ? and(eq(taskEvents.queue, queue), eq(taskEvents.type, type)) : eq(taskEvents.queue, queue);
  return db.select().from(taskEvents).where(where).orderBy(asc(taskEvents.id));
}

/** Row counts of the two tables every write touches, to prove a call wrote nothing. */
export async function rowCounts(db: Executor): Promise<{ tasks: number; events: number }> {
  const [t] = await db.select({ n: count() }).from(tasks);
  const [e] = await db.select({ n: count() }).from(taskEvents);
  return { tasks: t!.n, events: e!.n };
}

/** Asserts the result is a failure with `code` and returns the error. */
export function failure<T>(result: Result<T>, code: EngineErrorCode): EngineError {
  if (result.ok) throw new Error(`expected ${code}, but the call succeeded`);
  expect(result.error.code, result.error.message).toBe(code);
  return result.error;
}

/**
 * References the schema no longer checks (migration 0017 dropped the log's foreign keys and the
 * owner's): events naming a task, queue or actor that does not exist, and owners that are no
 * actor. The engine's suites end with this at zero.
 */
export async function danglingReferences(db: Executor): Promise<Record<string, number>> {
  const [row] = await db.execute<Record<string, number>>(sql`
    SELECT
      (SELECT count(*)::int FROM task_events e WHERE e.task_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = e.task_id)) AS event_task,
      (SELECT count(*)::int FROM task_events e WHERE NOT EXISTS (SELECT 1 FROM queues q WHERE q.name = e.queue)) AS event_queue,
      (SELECT count(*)::int FROM task_events e WHERE NOT EXISTS (SELECT 1 FROM actors a WHERE a.id = e.actor_id)) AS event_actor,
      (SELECT count(*)::int FROM tasks t WHERE t.owner_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM actors a WHERE a.id = t.owner_id)) AS task_owner`);
  return { ...row! };
}

/**
 * The sets that mirror task_state (migrations 0028, 0029, 0034): which tasks each holds, and
 * the columns it copies. Their triggers, and the claim's and completion's own statements, keep
 * them exact for every writer.
 */
const SETS = {
  task_held: { member: `s.status IN ('claimed', 'started')`, columns: `queue, priority, created_at, owner_id` },
  task_lease: { member: `s.status IN ('claimed', 'started')`, columns: `queue, lease_until, attempt_limited` },
  task_queued: { member: `s.status = 'queued' AND s.blocked_by = '{}'::bigint[]`, columns: `queue, priority, created_at, not_before` },
} as const;

/**
 * How far a set is from what it mirrors: member tasks missing from it, rows of it for tasks
 * that are not members, and rows whose copied columns differ from task_state's.
 */
async function setDrift(db: Executor, set: keyof typeof SETS): Promise<{ missing: number; extra: number; stale: number }> {
  const { member, columns } = SETS[set];
  const copied = (alias: string) => columns.split(", ").map((c) => `${alias}.${c}`).join(", ");
  const [row] = await db.execute<{ missing: number; extra: number; stale: number }>(sql.raw(`
    SELECT
      (SELECT count(*)::int FROM task_state s WHERE ${member}
         AND NOT EXISTS (SELECT 1 FROM ${set} r WHERE r.id = s.id)) AS missing,
      (SELECT count(*)::int FROM ${set} r WHERE NOT EXISTS (
         SELECT 1 FROM task_state s WHERE s.id = r.id AND ${member})) AS extra,
      (SELECT count(*)::int FROM ${set} r JOIN task_state s ON s.id = r.id
         WHERE (${copied("r")}) IS DISTINCT FROM (${copied("s")})) AS stale`));
  return { ...row! };
}

/** The held set's drift (task_held and its leases, task_lease: claimed and started tasks), the two tables' counts added. */
export async function heldSetDrift(db: Executor): Promise<{ missing: number; extra: number; stale: number }> {
  const [held, leases] = [await setDrift(db, "task_held"), await setDrift(db, "task_lease")];
  return { missing: held.missing + leases.missing, extra: held.extra + leases.extra, stale: held.stale + leases.stale };
}

/** The claimable set's drift (task_queued: queued tasks that wait on no dependency). */
export const queuedSetDrift = (db: Executor) => setDrift(db, "task_queued");
