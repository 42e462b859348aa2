import { sql, type SQL } from "drizzle-orm";

// The strike rule, written once (docs/engine.md): a failed attempt, a lapse past the attempt
// ceiling and a rejected review each count a failure; the one that reaches the queue's
// max_failures sends the task to the supervisors' inbox instead of the queue. `t` is the task
// row and `q` its queue, as in every transition (transition.ts).

/** Longest retry backoff: retry_delay_seconds × 2^(n − 1) grows past any sensible wait by n ≈ 20. */
export const MAX_BACKOFF_SECONDS = 7 * 86_400;

/** Where a strike sends the task: escalated on the last strike, queued otherwise. */
export const strikeStatus = sql`CASE WHEN t.failure_count + 1 >= q.max_failures THEN 'escalated' ELSE 'queued' END::task_status`;

/**
 * The retry backoff of a strike that requeues: not before now + retry_delay_seconds ×
 * 2^(failure_count − 1), failure_count counted with this strike, at most MAX_BACKOFF_SECONDS.
 * No delay (0, the default) leaves notBefore empty.
 */
const backoff = (now: SQL) => sql`CASE
  WHEN t.failure_count + 1 >= q.max_failures OR q.retry_delay_seconds = 0 THEN NULL
  ELSE ${now} + make_interval(secs => least(q.retry_delay_seconds * power(2, t.failure_count), ${MAX_BACKOFF_SECONDS}))
END`;

/** The SET items of a strike that backs off (fail, reject): the count, and the next try's notBefore. */
export const countStrike = (now: SQL) => sql`failure_count = t.failure_count + 1, not_before = ${backoff(now)}`;
