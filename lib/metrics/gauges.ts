import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";

export interface Gauges {
  tasks: { queue: string; status: string; n: number }[];
  queues: { name: string; lease_seconds: number; tripped: boolean }[];
}

/**
 * The metrics' two reads of the database: tasks by queue and status (one pass over the
 * tasks table — its cost follows the number of tasks, never the event log: 8 ms at
 * 100,000, see docs/insights.md) and the queues table.
 */
export async function readGauges(db: Executor): Promise<Gauges> {
  const [tasks, queues] = await Promise.all([
    db.execute<Gauges["tasks"][number]>(sql`
      SELECT queue, status, count(*)::int AS n FROM tasks GROUP BY queue, status ORDER BY queue, status`),
    db.execute<Gauges["queues"][number]>(sql`
      SELECT name, lease_seconds, breaker_tripped_at IS NOT NULL AS tripped FROM queues ORDER BY name`),
  ]);
  return { tasks, queues };
}
