import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { TaskStatus } from "@/db/schema";
import type { Clock } from "../core/clock";
import { appendEvents, type NewEvent } from "../core/events";
import { executePrepared } from "@/db/hot-path";
import { fail, type ActorRef, type EngineError } from "../core/types";

// The work graph's bookkeeping (docs/engine.md "The work graph"). A task's row carries its
// dependencies (depends_on) and those not done yet (blocked_by); the transaction that
// finishes a dependency removes it from its dependents' blocked_by, so claim-next reads
// "blocked?" from the row and its partial index — never a join per candidate.

/** All dependency edits that could close a cycle take this lock, so two racing edits cannot both pass the check. */
const GRAPH_LOCK = 0x636c6d62; // "clmb"

export interface Dependency {
  id: bigint;
  status: TaskStatus;
}

/** Sorted and without repeats: the form depends_on is stored in. */
export function normalizeIds(ids: readonly string[]): bigint[] {
  return [...new Set(ids.map((id) => BigInt(id)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export const idArray = (ids: readonly bigint[]) => sql`${`{${ids.join(",")}}`}::bigint[]`;

/**
 * Locks the dependencies FOR SHARE and reads their status: a dependency completing at the
 * same time either commits first (then it reads as done here) or waits for this
 * transaction (then its unblocking sees the new dependent). Unknown ids are not_found, a
 * cancelled one (it will never be done) invalid_transition, both naming the field.
 */
export async function lockDependencies(tx: Executor, ids: bigint[]): Promise<{ ok: true; value: Dependency[] } | { ok: false; error: EngineError }> {
  if (ids.length === 0) return { ok: true, value: [] };
  const rows = await tx.execute<{ id: string; status: TaskStatus }>(sql`
    SELECT id::text, status FROM task_state WHERE id = ANY(${idArray(ids)}) ORDER BY id FOR SHARE`);
  const found = new Map(rows.map((r) => [BigInt(r.id), r.status]));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) {
    return fail({ code: "not_found", field: "dependsOn", message: `dependsOn: task ${missing.map(String).join(", ")} does not exist` });
  }
  const cancelled = ids.filter((id) => found.get(id) === "cancelled");
  if (cancelled.length > 0) {
    return fail({
      code: "invalid_transition", field: "dependsOn",
      message: `dependsOn: task ${cancelled.map(String).join(", ")} is cancelled and will never be done`,
    });
  }
  return { ok: true, value: ids.map((id) => ({ id, status: found.get(id)! })) };
}

/** Serialises edits of existing tasks' dependencies (rare) for the rest of the transaction. */
export async function lockGraph(tx: Executor): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${GRAPH_LOCK})`);
}

/**
 * Would `task` depending on `ids` close a cycle: does any of `ids` already reach `task`
 * through depends_on? UNION (not ALL) visits each task once, so a wide graph stays linear.
 * Call under lockGraph, so an edit committed meanwhile is seen.
 */
export async function closesCycle(tx: Executor, task: bigint, ids: bigint[]): Promise<boolean> {
  if (ids.includes(task)) return true;
  const [row] = await tx.execute<{ cycle: boolean }>(sql`
    WITH RECURSIVE reach(id) AS (
      SELECT unnest(${idArray(ids)})
      UNION
      SELECT unnest(t.depends_on) FROM reach r JOIN tasks t ON t.id = r.id
    )
    SELECT EXISTS (SELECT 1 FROM reach WHERE id = ${task.toString()}::bigint) AS cycle`);
  return row?.cycle ?? false;
}

/**
 * In the transaction that made `doneIds` done: removes them from every dependent's
 * blocked_by (locking dependents in id order, so two completions sharing dependents cannot
 * deadlock), and writes `unblocked` on each dependent that has nothing left to wait for.
 * updated_at moves only then: a dependent still blocked has no event, so its row keeps it.
 */
export async function unblockDependents(tx: Executor, clock: Clock, actor: ActorRef, doneIds: bigint[]): Promise<void> {
  await appendEvents(tx, clock, await dependentsUnblocked(tx, clock, actor, doneIds));
}

/**
 * unblockDependents' statement, for tasks that may have been made done by a statement sent
 * just before it on the same connection (completeTasks sends both in one round trip): only
 * those of `ids` that are done by now count. One already done before this transaction
 * counts for nothing: no dependent still waits for it (a dependency is added to blocked_by
 * only while not done, under a FOR SHARE lock the completion waits for).
 * Returns the `unblocked` events for the caller to append.
 */
export async function dependentsUnblocked(tx: Executor, clock: Clock, actor: ActorRef, ids: bigint[]): Promise<NewEvent[]> {
  if (ids.length === 0) return [];
  const candidates = idArray(ids);
  // Most finished tasks have no dependents: one probe of tasks_blocked_by says so, and the
  // unblocking statement below (a plan several times its size) runs only when some task
  // still waits for one of them (pgbench of the loop: +7.6 % tasks/s, CHANGELOG.md).
  // Sent right behind the completion, as the statement was: a dependent whose creator
  // locked a dependency FOR SHARE first committed before the completion's UPDATE could
  // proceed, so this later statement sees it; one that comes after waits for this commit.
  const [waiting] = await executePrepared<{ any: boolean }>(tx, sql`
    SELECT EXISTS (SELECT 1 FROM task_state WHERE blocked_by && ${candidates} AND blocked_by <> '{}'::bigint[]) AS any`);
  if (!waiting?.any) return [];
  const rows = await executePrepared<{ id: string; queue: string; version: number; status: TaskStatus; unblocked: boolean; done: string[] }>(tx, sql`
    WITH done AS MATERIALIZED (
      SELECT coalesce(array_agg(id ORDER BY id), '{}') AS ids FROM task_state WHERE id = ANY(${candidates}) AND status = 'done'
    ), dependents AS MATERIALIZED (
      -- The candidates as a value too: estimated from it, the walk stays a few rows joined by
      -- id (estimated from the subquery alone, the planner merge-joins along the whole table).
      -- blocked_by <> '{}' repeats tasks_blocked_by's predicate: without it the partial index cannot be used (a full scan per completion).
      SELECT id FROM task_state WHERE blocked_by && ${candidates} AND blocked_by && (SELECT ids FROM done) AND blocked_by <> '{}'::bigint[] ORDER BY id FOR UPDATE
    )
    UPDATE task_state t SET
      blocked_by = coalesce((SELECT array_agg(b ORDER BY b) FROM unnest(t.blocked_by) b WHERE NOT b = ANY((SELECT ids FROM done)::bigint[])), '{}'),
      updated_at = CASE WHEN t.blocked_by <@ (SELECT ids FROM done) THEN ${clock.now()} ELSE t.updated_at END
    FROM dependents d
    WHERE t.id = d.id
    RETURNING t.id::text AS id, t.queue, t.version, t.status, t.blocked_by = '{}'::bigint[] AS unblocked, (SELECT ids FROM done)::text[] AS done`);
  return rows
    .filter((r) => r.unblocked)
    .sort((a, b) => Number(BigInt(a.id) - BigInt(b.id)))
    .map((r) => ({
      taskId: BigInt(r.id), queue: r.queue, type: "unblocked", actorId: actor.id,
      payload: { version: Number(r.version), status: r.status, dependencies: r.done },
    }));
}

/**
 * In the transaction that cancelled `cancelledId`: every queued task waiting for it goes to
 * the supervisors' inbox (it can never run as asked), the reason naming the dependency.
 */
export async function escalateDependents(tx: Executor, clock: Clock, actor: ActorRef, cancelledId: bigint): Promise<void> {
  const rows = await executePrepared<{ id: string; queue: string; version: number }>(tx, sql`
    WITH dependents AS MATERIALIZED (
      SELECT id FROM task_state WHERE blocked_by && ${idArray([cancelledId])} AND blocked_by <> '{}'::bigint[] AND status = 'queued' ORDER BY id FOR UPDATE
    )
    UPDATE task_state t SET status = 'escalated', version = t.version + 1, updated_at = ${clock.now()}
    FROM dependents d
    WHERE t.id = d.id AND t.status = 'queued'
    RETURNING t.id::text AS id, t.queue, t.version`);
  await appendEvents(tx, clock, rows
    .sort((a, b) => Number(BigInt(a.id) - BigInt(b.id)))
    .map((r) => ({
      taskId: BigInt(r.id), queue: r.queue, type: "escalated", actorId: actor.id,
      payload: {
        version: Number(r.version), status: "escalated", dependency: cancelledId.toString(),
        reason: `Its dependency #${cancelledId} was cancelled`,
      },
    })));
}
