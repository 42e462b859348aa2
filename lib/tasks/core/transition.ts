import { sql, type SQL } from "drizzle-orm";
import type { Tx } from "@/db/client";
import type { TaskRow, TaskStatus } from "@/db/schema";
import { rawToTaskRow, withContent } from "./task-row";
import { executePrepared } from "@/db/hot-path";
import { clearAttempt } from "./attempt";
import type { Expectation } from "./conflicts";
import { doneBy, MOVES, type OwnerMove, type SupervisorMove, type TaskStatus as MachineStatus } from "./machine";
import type { ActorRef } from "./types";

export interface Changed {
  row: TaskRow;
  previous: { status: TaskStatus; ownerId: string | null; needsCheck: boolean; sideEffectRecorded: boolean };
  /** The earliest comment that may be unread for the holder (task_state.unread_from; lib/tasks/holding/unread.ts). */
  unreadFrom: string | null;
}

/**
 * A condition checked on a row already found by other means, never a way to find it: a guard on
 * a task found by its key, a walk's recheck on the task_state row of a set's candidate.
 * coalesce() keeps the planner from reading it as a search condition or estimating it from
 * task_state's statistics:
 * - a guard's `status = 'started'` made the completion read every started task of the queue
 *   through tasks_status_order when the statistics said none was started (16 index reads and
 *   heap rows a completion in the loop's replay, where one key lookup does; CHANGELOG.md);
 * - a walk's bare recheck made the batch's lapsed walk sort every lapsed lease instead of
 *   walking the held set (121 ms at a million tasks against 5.6 ms, bench/explain-claim.ts (a)).
 */
export const recheck = (condition: SQL) => sql`coalesce(${condition}, false)`;

/**
 * One guarded UPDATE of one task. `set` and `guard` may refer to the task as `t` and its
 * queue as `q`. The row is locked first (waiting at most the session's lock_timeout) so
 * the RETURNING can say what the row was before; the guard then decides, and a null
 * result means the caller lost — never a read-then-write in two steps.
 */
export async function transition(tx: Tx, taskId: string, set: SQL, guard: SQL): Promise<Changed | null> {
  const [raw] = await executePrepared<Record<string, unknown>>(tx, withContent(sql`
    WITH before AS MATERIALIZED (
      SELECT id, status, owner_id, needs_check, side_effect_recorded FROM task_state
      WHERE id = ${taskId}::bigint
      FOR UPDATE
    )
    UPDATE task_state t SET ${set}
    FROM before b, queues q
    WHERE t.id = b.id AND q.name = t.queue AND ${recheck(guard)}
    RETURNING t.*, b.status AS previous_status, b.owner_id AS previous_owner_id,
              b.needs_check AS previous_needs_check, b.side_effect_recorded AS previous_side_effect_recorded`));
  if (!raw) return null;
  return {
    row: rawToTaskRow(raw),
    previous: {
      status: raw.previous_status as TaskStatus,
      ownerId: (raw.previous_owner_id as string | null) ?? null,
      needsCheck: Boolean(raw.previous_needs_check),
      sideEffectRecorded: Boolean(raw.previous_side_effect_recorded),
    },
    unreadFrom: raw.unread_from === null || raw.unread_from === undefined ? null : String(raw.unread_from),
  };
}

/** The SET list that ends an attempt and puts the task back in line (or elsewhere). */
export const endAttempt = (status: SQL, now: SQL) => sql`
  status = ${status},
  owner_id = NULL,
  lease_until = NULL,
  lease_seconds = NULL,
  needs_check = t.needs_check OR t.side_effect_recorded,
  side_effect_recorded = false,
  unknown_effects = t.unknown_effects + t.intended_effects,
  intended_effects = 0,
  ${clearAttempt},
  version = t.version + 1,
  updated_at = ${now}`;

/**
 * `t.status` (or another column of statuses; alias "" for the bare column) in `statuses`: the
 * machine's constants, written into the statement as literals, so a status set is never typed
 * into SQL by hand.
 */
export const statusIn = (statuses: readonly MachineStatus[], alias = "t", column = "status") =>
  sql.raw(statuses.length === 1 ? `${qualified(alias, column)} = '${statuses[0]}'` : `${qualified(alias, column)} IN (${literals(statuses)})`);

/** The column's status outside `statuses` (statusIn's complement, as NOT IN). */
export const statusNotIn = (statuses: readonly MachineStatus[], alias = "t", column = "status") =>
  sql.raw(`${qualified(alias, column)} NOT IN (${literals(statuses)})`);

const qualified = (alias: string, column: string) => (alias ? `${alias}.${column}` : column);
const literals = (statuses: readonly MachineStatus[]) => statuses.map((s) => `'${s}'`).join(", ");

/** A guarded call names its task and the version it saw. */
export interface Fenced {
  taskId: string;
  version: number;
}

/**
 * An owner's move, built from its row of the machine (lib/tasks/core/machine.ts): the guard of
 * its UPDATE — status in `from`, owned by the caller, at the version named (a parameter, or
 * a column of a batch), the lease still valid where the row requires it, and `also` for
 * what is the move's own — and the expectation explainMiss reads when that guard matched nothing.
 */
export function ownerTransition(name: OwnerMove) {
  const row = MOVES[name];
  const lease = (now: SQL) => ("requiresLease" in row ? sql` AND t.lease_until > ${now}` : sql``);
  return {
    guard: (actor: ActorRef, version: number | SQL, now: SQL, also?: SQL) =>
      sql`${statusIn(row.from)} AND t.owner_id = ${actor.id}::uuid AND t.version = ${version}${lease(now)}${also ? sql` AND ${also}` : sql``}`,
    expected: (call: Fenced, actor: ActorRef, more: Partial<Expectation> = {}): Expectation => ({
      taskId: call.taskId, version: call.version, actor, verb: row.verb, from: row.from, doneBy: doneBy(row),
      ...("requiresLease" in row ? { requiresLease: true } : {}), ...more,
    }),
  };
}

/** A supervisor's move, from its row: status in `from` at the version named, whoever holds it. */
export function supervisorGuard(name: SupervisorMove) {
  const row = MOVES[name];
  return {
    guard: (version: number) => sql`${statusIn(row.from)} AND t.version = ${version}`,
    expected: (call: Fenced, actor: ActorRef): Expectation => ({
      taskId: call.taskId, version: call.version, actor, verb: row.verb, from: row.from, doneBy: doneBy(row), ownerOnly: false,
    }),
  };
}
