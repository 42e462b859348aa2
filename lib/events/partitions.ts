import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";

// task_events is partitioned by UTC month (migration 0012). The partitions are found by their
// bounds, not their names (a partition may be renamed); the DEFAULT partition holds rows of a
// month that had no partition of its own when they were written.

export interface MonthPartition {
  /** The table, e.g. task_events_2026_01 (quoted when it needs to be). */
  table: string;
  /** "2026-01". */
  month: string;
  from: Date;
  to: Date;
}

/** "2026-01" from a UTC month start. */
export const monthOf = (date: Date) => date.toISOString().slice(0, 7);

/** The UTC instant a "YYYY-MM" month begins. */
export const monthStart = (month: string) => new Date(`${month}-01T00:00:00.000Z`);

/**
 * Makes the month partitions from `since`'s month through next month (an SQL function, so
 * migrations, starts and the archive share one definition). Returns how many it made.
 */
export async function ensurePartitions(db: Executor, since?: Date): Promise<number> {
  const [row] = await db.execute<{ made: number }>(
    since
      ? sql`SELECT task_events_ensure_partitions(${since.toISOString()}::timestamptz) AS made`
      : sql`SELECT task_events_ensure_partitions() AS made`,
  );
  return Number(row?.made ?? 0);
}

/** The month partitions attached to task_events, oldest first. */
export async function listPartitions(db: Executor): Promise<MonthPartition[]> {
  const rows = await db.execute<{ table: string; from: string; to: string }>(sql`
    SELECT b.oid::regclass::text AS "table",
           (regexp_match(b.bound, $$FROM \\('([^']+)'\\)$$))[1]::timestamptz AS "from",
           (regexp_match(b.bound, $$TO \\('([^']+)'\\)$$))[1]::timestamptz AS "to"
      FROM (SELECT c.oid, pg_get_expr(c.relpartbound, c.oid) AS bound
              FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'task_events'::regclass) b
     WHERE b.bound <> 'DEFAULT'
     ORDER BY 2`);
  return rows.map((r) => ({ table: r.table, month: monthOf(new Date(r.from)), from: new Date(r.from), to: new Date(r.to) }));
}
