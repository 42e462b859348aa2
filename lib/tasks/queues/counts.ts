import { and, sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { taskState, taskStatus, type Claimants, type TaskStatus } from "@/db/schema";
import { taskFilters } from "../reads/queries";
import type { CountTasksQuery } from "../reads/query-schemas";
import type { ActorRef } from "../core/types";

/**
 * The board's live counts: per status for the current filter, and per queue and status.
 *
 * Each count stops at COUNT_CAP + 1 rows (a LIMIT inside count(*)), so its cost is bounded
 * by the cap, not by the table: 100,000 done tasks cost what 1,001 do, and the board says
 * "1,000+" (GitHub and Linear do the same). Below the cap every count is exact. Each probe
 * is an index(-only) scan: tasks_status_order for a status, tasks_queue_status for a queue
 * and status (queueStatusCount), task_search_words for a search (CHANGELOG.md has the
 * EXPLAINs).
 */
export const COUNT_CAP = 1000;

export { countTasksQuery, type CountTasksQuery } from "../reads/query-schemas";

export type StatusCounts = Record<TaskStatus, number>;

export interface TaskCounts {
  /** The current filter's tasks in each status (at most COUNT_CAP + 1: more than the cap). */
  statuses: StatusCounts;
  /** Every queue that is not archived, with its tasks in each status (the filter's queue aside, unfiltered). */
  queues: { queue: string; description: string; claimants: Claimants; paused: boolean; statuses: StatusCounts }[];
  cap: number;
}

/**
 * A queue's tasks in one status, counted to the cap, for a statement over `queues q`: the
 * board's per-queue counts and the queue list. The queue is the outer row's, so the planner
 * cannot use its statistics and guesses the tasks per queue as an average; with one queue
 * holding most of the tasks it guessed that a scan of the table (or of its primary key) finds
 * 1,001 done tasks of a small queue at once, and read the whole table (130–300 ms at a
 * million tasks). So the probe asks for the order of tasks_queue_status, which no other path
 * gives without sorting everything it reads: the status as a range of one (`BETWEEN`), since
 * an equality would make the planner drop it from the order, and the order by id alone is
 * the primary key's too. The range stops the walk at the status's last entry, as `=` does
 * (CHANGELOG.md, "the per-queue counts").
 */
export const queueStatusCount = (status: TaskStatus) =>
  sql`(SELECT count(*)::int FROM (SELECT 1 FROM task_state t WHERE t.queue = q.name AND t.status BETWEEN ${status} AND ${status}
        ORDER BY t.status, t.id LIMIT ${COUNT_CAP + 1}) c)`;

const capped = (where: SQL) => sql`(SELECT count(*)::int FROM (SELECT 1 FROM ${taskState} WHERE ${where} LIMIT ${COUNT_CAP + 1}) capped)`;

export async function countTasks(db: Executor, query: CountTasksQuery, caller: ActorRef): Promise<TaskCounts> {
  const filters = taskFilters(query, caller);
  const statuses = taskStatus.enumValues;
  const perStatus = sql.join(
    statuses.map((status) => sql`${capped(and(sql`${taskState.status} = ${status}`, ...filters)!)} AS ${sql.identifier(status)}`),
    sql`, `,
  );
  const perQueue = sql.join(
    statuses.map((status) => sql`${queueStatusCount(status)} AS ${sql.identifier(status)}`),
    sql`, `,
  );
  const [filtered, queues] = await Promise.all([
    db.execute<StatusCounts>(sql`SELECT ${perStatus}`),
    db.execute<StatusCounts & { queue: string; description: string; claimants: Claimants; paused: boolean }>(sql`SELECT q.name AS queue, q.description, q.claimants, q.paused, ${perQueue} FROM queues q WHERE q.archived_at IS NULL ORDER BY q.name`),
  ]);
  const pick = (row: Record<string, unknown>): StatusCounts => Object.fromEntries(statuses.map((s) => [s, Number(row[s] ?? 0)])) as StatusCounts;
  return {
    statuses: pick(filtered[0]!),
    queues: queues.map((row) => ({ queue: row.queue, description: row.description, claimants: row.claimants, paused: row.paused, statuses: pick(row) })),
    cap: COUNT_CAP,
  };
}
