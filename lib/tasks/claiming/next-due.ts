import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";

/**
 * Milliseconds from now until the next moment a task of `queue` becomes claimable by time
 * alone — a lease running out (plus the queue's lock delay, lib/tasks/claiming/lock-delay.ts)
 * or a `notBefore` coming due — or null when nothing is ahead. What is already past is not
 * counted: a claim made now sees it. Two index range reads stopping at their first row
 * (task_lease_until, task_queued_scheduled), on the database's clock, which the claim
 * decides by. Waiting claims time their queue's next try with it (lib/realtime/claim-waits.ts).
 */
export async function nextDueIn(db: Executor, queue: string): Promise<number | null> {
  const rows = await db.execute<{ ms: string | null }>(sql`
    WITH q AS (SELECT make_interval(secs => COALESCE((SELECT lock_delay_seconds FROM queues WHERE name = ${queue}), 0)) AS delay)
    SELECT (EXTRACT(EPOCH FROM LEAST(
      (SELECT l.lease_until + q.delay FROM task_lease l WHERE l.queue = ${queue} AND l.lease_until > now() - q.delay ORDER BY l.lease_until LIMIT 1),
      (SELECT t.not_before FROM task_queued t WHERE t.queue = ${queue} AND t.not_before IS NOT NULL AND t.not_before > now() ORDER BY t.not_before LIMIT 1)
    ) - now()) * 1000)::text AS ms FROM q`);
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? null : Math.max(0, Math.ceil(Number(ms)));
}
