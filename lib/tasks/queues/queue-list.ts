import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { withReadSettings } from "@/db/read-settings";
import { taskStatus, type Claimants, type TaskStatus } from "@/db/schema";
import { queueStatusCount } from "./counts";

// Every queue as a supervisor sees it (GET /api/v1/queues, the /queues page): its settings,
// its state (paused, breaker tripped, archived), live counts by status and its throughput.

export type QueueStatusCounts = Record<TaskStatus, number>;

export interface QueueSummary {
  name: string;
  description: string;
  leaseSeconds: number;
  maxFailures: number;
  expiryThreshold: number;
  expiryWindowSeconds: number;
  retryDelaySeconds: number;
  lockDelaySeconds: number;
  personIdleSeconds: number;
  personGraceSeconds: number;
  maxRenewalsWithoutProgress: number;
  questionTimeoutSeconds: number;
  claimants: Claimants;
  commenters: "anyone" | "people" | "supervisors";
  /** Which completions wait for a reviewer. */
  review: "none" | "agents" | "everyone";
  maxAttemptSeconds: number | null;
  paused: boolean;
  pausedAt: Date | null;
  /** Who paused it (a name), while paused. */
  pausedBy: string | null;
  breakerTrippedAt: Date | null;
  breakerReason: string | null;
  archivedAt: Date | null;
  archivedBy: string | null;
  /** Tasks in each status; a count stops at COUNT_CAP + 1 (more than the cap). */
  counts: QueueStatusCounts;
  /** Tasks finished (completed or resolved) in the last hour and the last 24 hours. */
  throughput: { lastHour: number; last24Hours: number };
  createdAt: Date;
}

type Row = Omit<QueueSummary, "counts" | "throughput"> & Record<TaskStatus | "done_hour" | "done_day", number>;

/**
 * Every queue, archived ones too (their state says so), alphabetically. Each count is the
 * board's capped probe of tasks_queue_status (queueStatusCount: its cost bounded by the cap,
 * not the table); throughput walks task_events_queue_finished (partial: only the events that
 * finish a task, task_event_finishes) over the last hour and day. JIT off (db/read-settings.ts
 * says why).
 */
export async function listQueues(db: Executor, now?: Date, name?: string): Promise<QueueSummary[]> {
  const at = now ? sql`${now.toISOString()}::timestamptz` : sql`now()`;
  const perStatus = sql.join(
    taskStatus.enumValues.map((status) => sql`${queueStatusCount(status)} AS ${sql.identifier(status)}`),
    sql`, `,
  );
  const finished = (interval: string) => sql`(SELECT count(*)::int FROM task_events e
      WHERE e.queue = q.name AND e.created_at > ${at} - ${interval}::interval AND e.created_at <= ${at}
        AND task_event_finishes(e.type))`;
  const rows = await withReadSettings(db, (tx) => tx.execute<Row>(sql`
    SELECT q.name, q.description, q.lease_seconds AS "leaseSeconds", q.max_failures AS "maxFailures",
           q.expiry_threshold AS "expiryThreshold", q.expiry_window_seconds AS "expiryWindowSeconds",
           q.retry_delay_seconds AS "retryDelaySeconds", q.lock_delay_seconds AS "lockDelaySeconds", q.person_idle_seconds AS "personIdleSeconds", q.person_grace_seconds AS "personGraceSeconds", q.max_renewals_without_progress AS "maxRenewalsWithoutProgress", q.question_timeout_seconds AS "questionTimeoutSeconds", q.claimants, q.commenters, q.review, q.max_attempt_seconds AS "maxAttemptSeconds",
           q.paused, q.paused_at AS "pausedAt", p.name AS "pausedBy",
           q.breaker_tripped_at AS "breakerTrippedAt", q.breaker_reason AS "breakerReason",
           q.archived_at AS "archivedAt", a.name AS "archivedBy", q.created_at AS "createdAt",
           ${perStatus}, ${finished("1 hour")} AS done_hour, ${finished("24 hours")} AS done_day
    FROM queues q LEFT JOIN actors p ON p.id = q.paused_by LEFT JOIN actors a ON a.id = q.archived_by
    ${name === undefined ? sql`` : sql`WHERE q.name = ${name}`}
    ORDER BY q.name`));
  return rows.map((row) => {
    const { done_hour, done_day, ...rest } = row;
    const counts = Object.fromEntries(taskStatus.enumValues.map((s) => [s, Number(row[s])])) as QueueStatusCounts;
    for (const s of taskStatus.enumValues) delete (rest as Record<string, unknown>)[s];
    const date = (v: Date | string | null) => (v === null ? null : new Date(v));
    return {
      ...rest,
      pausedAt: date(rest.pausedAt), breakerTrippedAt: date(rest.breakerTrippedAt), archivedAt: date(rest.archivedAt),
      createdAt: new Date(rest.createdAt),
      counts,
      throughput: { lastHour: Number(done_hour), last24Hours: Number(done_day) },
    };
  });
}

/** One queue as listQueues shows it; null when there is none. */
export async function readQueueSummary(db: Executor, name: string): Promise<QueueSummary | null> {
  return (await listQueues(db, undefined, name))[0] ?? null;
}
