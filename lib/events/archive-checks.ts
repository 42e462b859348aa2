import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { statusNotIn } from "@/lib/tasks";
import { FINISHED } from "@/lib/tasks/model";

// What `events archive` refuses before it writes or drops anything; each refusal is one
// sentence saying why and what would be accepted.

export class ArchiveRefused extends Error {}

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

export const isMonth = (value: string) => MONTH.test(value);

/** Months of the current month or later are never archived (the log is still being written). */
export async function refuseUnendedMonths(db: Executor, before: string): Promise<void> {
  if (!isMonth(before)) throw new ArchiveRefused(`--before must be a month as YYYY-MM, not ${JSON.stringify(before)}`);
  const [row] = await db.execute<{ current: string }>(sql`SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM') AS current`);
  const current = row!.current;
  if (before > current) {
    throw new ArchiveRefused(
      `--before ${before} would take in ${current}, the current month${before > nextMonth(current) ? ", and months still to come" : ""}: ` +
        `only months that have ended can be archived (--before ${current} or earlier)`,
    );
  }
}

const nextMonth = (month: string) => {
  const d = new Date(`${month}-01T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + 1);
  return d.toISOString().slice(0, 7);
};

/**
 * Rows in the DEFAULT partition cannot be dropped by month. The archive's ensurePartitions
 * moves them into their months' partitions first (migration 0014), so this only meets rows
 * written there since: it refuses rather than leave part of a month behind.
 */
export async function refuseDefaultRows(db: Executor, before: Date, beforeMonth: string): Promise<void> {
  const [row] = await db.execute<{ n: number; first: string | null }>(sql`
    SELECT count(*)::int AS n, to_char(min(created_at) AT TIME ZONE 'UTC', 'YYYY-MM') AS first
      FROM task_events_default WHERE created_at < ${before.toISOString()}::timestamptz`);
  if (row && row.n > 0) {
    throw new ArchiveRefused(
      `${row.n} events before ${beforeMonth} (from ${row.first}) were just written to task_events_default (their month has no ` +
        `partition): run it again, which gives them one first`,
    );
  }
}

/** The first month before `before` with events of a task that is not done or cancelled. */
export async function refuseUnfinishedTasks(db: Executor, before: Date): Promise<void> {
  const [row] = await db.execute<{ month: string; tasks: number; example: string; status: string }>(sql`
    SELECT to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, count(DISTINCT t.id)::int AS tasks,
           min(t.id)::text AS example, (array_agg(t.status::text ORDER BY t.id))[1] AS status
      FROM task_events e JOIN tasks t ON t.id = e.task_id
     WHERE e.created_at < ${before.toISOString()}::timestamptz AND ${statusNotIn(FINISHED)}
     GROUP BY 1 ORDER BY 1 LIMIT 1`);
  if (row) {
    throw new ArchiveRefused(
      `${row.month} has events of ${row.tasks} unfinished task${row.tasks === 1 ? "" : "s"} (task ${row.example} is ${row.status}): ` +
        `only months whose tasks are all done or cancelled can be archived`,
    );
  }
}
