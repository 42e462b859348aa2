import { sql, type SQL } from "drizzle-orm";
import type { Clock } from "../core/clock";

/**
 * What a targeted claim adds to its candidate's WHERE (alias-free: the row is `task_state`):
 * not in a paused queue, and for a queued task, nothing left to wait for — no dependency
 * not done, no notBefore still ahead. A lapsed held task was ready when it was claimed.
 */
export function readyForClaim(clock: Clock): SQL {
  return sql`
    AND (status <> 'queued' OR (blocked_by = '{}'::bigint[] AND (not_before IS NULL OR not_before <= ${clock.now()})))
    AND NOT EXISTS (SELECT 1 FROM queues WHERE queues.name = task_state.queue AND queues.paused)`;
}
