import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { TaskStatus } from "@/db/schema";
import type { Clock } from "../core/clock";
import { notFound } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { readinessInput } from "../core/schemas";
import { EVERYONE } from "../core/standing";
import { ok, type ActorRef, type Result, type Unread } from "../core/types";
import { lastProgressFactAt, renewalsSinceProgress } from "./no-progress";
import { listUnread } from "./unread";
import type { LeaseReason, LeaseState } from "./lease-codes";

// Why is this held? (docs/leases.md): the lease of a task as one read — who holds it, until
// when, how often it was renewed and how long since progress — with reason codes a page or
// an agent can put in words. A read of the row and the attempt's few events; nothing hot.

export interface Lease {
  state: LeaseState;
  /** Who holds it (held, parked) or held it last (lapsed); null when free. */
  holder: ActorRef | null;
  attempt: number;
  leaseUntil: Date | null;
  /** Renewals of the current (or last) attempt. */
  renewals: number;
  /** Renewals in a row without progress, counted where the queue sets a limit (0 otherwise). */
  renewalsWithoutProgress: number;
  /** The queue's maxRenewalsWithoutProgress (0: off). */
  maxRenewalsWithoutProgress: number;
  /** The attempt's last progress: a heartbeat's `progress`, a checkpoint, an effect or a question. */
  lastProgressAt: Date | null;
  /** The open question a parked task waits for. */
  question: { id: string; text: string } | null;
  /** The holder's unread comments (docs/leases.md), oldest first. */
  unread: Unread[];
  reasons: LeaseReason[];
}

type Row = {
  status: TaskStatus; owner_id: string | null; owner_name: string | null; owner_kind: ActorRef["kind"] | null; attempt: number;
  lease_until: string | null; lapsed: boolean; progress_at: string | null; fact_at: string | null; counted: number; since: number;
  max: number; attempt_limited: boolean; maybe_unread: boolean; blocked: boolean; scheduled: boolean; paused: boolean;
  renewals: number; question_id: string | null; question: string | null; question_kind: "agent" | "budget" | null;
};

const FREE_REASON: Partial<Record<TaskStatus, LeaseReason>> = {
  queued: "queued", escalated: "escalated", in_review: "in_review", done: "done", cancelled: "cancelled",
};

export async function readLease(db: Executor, clock: Clock, taskId: string): Promise<Lease | null> {
  const now = clock.now();
  const [row] = await db.execute<Row>(sql`
    SELECT t.status, t.owner_id, a.name AS owner_name, a.kind AS owner_kind, t.attempt, t.lease_until,
           coalesce(t.lease_until <= ${now}, false) AS lapsed, t.progress_at, ${lastProgressFactAt} AS fact_at,
           t.renewals_without_progress AS counted, ${renewalsSinceProgress} AS since, q.max_renewals_without_progress AS max,
           t.attempt_limited, t.unread_from IS NOT NULL AS maybe_unread, t.blocked_by <> '{}'::bigint[] AS blocked,
           coalesce(t.not_before > ${now}, false) AS scheduled, q.paused,
           (SELECT count(*)::int FROM task_events h WHERE h.task_id = t.id AND h.type = 'heartbeat'
              AND h.id > coalesce((SELECT max(c.id) FROM task_events c WHERE c.task_id = t.id AND c.type = 'claimed'), 0)) AS renewals,
           x.id::text AS question_id, x.question, x.kind AS question_kind
    FROM task_state t JOIN queues q ON q.name = t.queue LEFT JOIN actors a ON a.id = t.owner_id
    LEFT JOIN LATERAL (SELECT id, question, kind FROM task_questions x WHERE x.task_id = t.id AND x.attempt = t.attempt
                         AND x.answered_at IS NULL AND x.expired_at IS NULL ORDER BY x.id DESC LIMIT 1) x ON t.status = 'awaiting_input'
    WHERE t.id = ${taskId}::bigint`);
  if (!row) return null;
  const held = row.status === "claimed" || row.status === "started";
  const parked = row.status === "awaiting_input";
  const state = held ? (row.lapsed ? "lapsed" : "held") : parked ? "parked" : "free";
  const holder = row.owner_id && (held || parked) ? { id: row.owner_id, name: row.owner_name ?? "unknown", kind: row.owner_kind ?? "user" } : null;
  const withoutProgress = Number(row.max) > 0 ? Math.min(Number(row.counted), Number(row.since)) : 0;
  const unread = holder && row.maybe_unread ? await listUnread(db, taskId, holder.id) : [];
  const progressAt = [row.progress_at, row.fact_at].filter((d): d is string => d !== null).map((d) => new Date(d));
  const reasons: LeaseReason[] = [];
  const add = (when: boolean, reason: LeaseReason) => when && reasons.push(reason);
  add(state === "held", "held");
  add(state === "lapsed", "lease_lapsed");
  add(held && withoutProgress > 0, "renewing_without_progress");
  add(held && row.attempt_limited, "attempt_limited");
  add(parked && row.question_kind !== "budget", "awaiting_answer");
  add(parked && row.question_kind === "budget", "awaiting_budget");
  add(unread.length > 0, "unread_input");
  const free = FREE_REASON[row.status];
  if (free) reasons.push(free);
  add(row.status === "queued" && row.blocked, "blocked");
  add(row.status === "queued" && row.scheduled, "scheduled");
  add(row.status === "queued" && row.paused, "queue_paused");
  return {
    state, holder, attempt: Number(row.attempt), leaseUntil: row.lease_until ? new Date(row.lease_until) : null,
    renewals: Number(row.renewals), renewalsWithoutProgress: withoutProgress, maxRenewalsWithoutProgress: Number(row.max),
    lastProgressAt: progressAt.length ? new Date(Math.max(...progressAt.map((d) => d.getTime()))) : null,
    question: row.question_id ? { id: row.question_id, text: row.question! } : null,
    unread, reasons,
  };
}

/** GET /tasks/{id}/lease: why the task is held (or not), for anyone who may read it. */
export const taskLease = defineOperation({
  name: "taskLease",
  who: EVERYONE,
  input: readinessInput,
  async run(tx, input, { clock }): Promise<Result<Lease>> {
    const lease = await readLease(tx, clock, input.taskId);
    return lease ? ok(lease) : notFound(input.taskId);
  },
});
