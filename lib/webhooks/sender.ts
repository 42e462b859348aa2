import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { recordAudit } from "@/lib/auth/audit";
import { actsFor, authorityEnded } from "@/lib/auth/authority";
import { databaseClock, type Clock, SYSTEM_ACTOR_ID, loadTask, parseTimestamp } from "@/lib/tasks";
import { postDelivery, type Outcome } from "./deliver";
import { signDelivery, unsealSecret } from "./secret";

// Sends the outbox (webhook_deliveries) after commit, from any server process. A sender takes
// due rows with FOR UPDATE SKIP LOCKED and pushes their next_attempt_at past the send's
// deadline in the same short transaction: that is its claim, so two senders (two instances)
// never send one delivery at once, and a sender that dies mid-send leaves the row to be taken
// again when the claim runs out. The result is written in a second transaction.

/** Seconds after the first try that each retry waits: 6 tries over 1 h 43 min (docs/contract.md#notifications: ≥ 5 over ≥ 1 h). */
export const RETRY_DELAYS = [30, 120, 600, 1800, 3600] as const;
export const MAX_TRIES = RETRY_DELAYS.length + 1;
/** A claim outlives the send's 10 s deadline with room to write the result. */
const CLAIM_SECONDS = 60;

interface Due {
  id: string;
  webhook_id: string;
  event_id: string;
  task_id: string | null;
  queue: string;
  type: string;
  actor_id: string;
  actor_name: string | null;
  actor_kind: string | null;
  payload: Record<string, unknown>;
  event_at: string;
  attempts: number;
  url: string;
  secret_sealed: string;
}

async function claimDue(db: Db, clock: Clock, limit: number): Promise<Due[]> {
  return db.execute<Due & Record<string, unknown>>(sql`
    WITH due AS MATERIALIZED (
      -- Only a live webhook's: a disable or a delete fails what is pending, and this keeps a
      -- row that slipped past it (written back by a try in flight) from being sent again.
      -- And only while the authority it acts with holds, read now (lib/auth/authority.ts): a
      -- lapse not yet marked on the webhook still sends nothing.
      SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id AND w.disabled_at IS NULL AND w.authority_ended_at IS NULL
      WHERE d.status = 'pending' AND d.next_attempt_at <= ${clock.now()} AND ${authorityEnded(actsFor("w"))} IS NULL
      ORDER BY d.next_attempt_at, d.id
      LIMIT ${limit}
      FOR UPDATE OF d SKIP LOCKED
    )
    UPDATE webhook_deliveries d
    SET attempts = d.attempts + 1, last_attempt_at = ${clock.now()},
        next_attempt_at = ${clock.now()} + make_interval(secs => ${CLAIM_SECONDS})
    FROM due, webhooks w
    WHERE d.id = due.id AND w.id = d.webhook_id
    RETURNING d.id::text, d.webhook_id, d.event_id::text, d.task_id::text, d.queue, d.type::text, d.actor_id,
              (SELECT a.name FROM actors a WHERE a.id = d.actor_id) AS actor_name,
              (SELECT a.kind::text FROM actors a WHERE a.id = d.actor_id) AS actor_kind,
              d.payload, d.event_at, d.attempts, w.url, w.secret_sealed`) as unknown as Promise<Due[]>;
}

/** The body: `{type, timestamp, data}`, data the event as the stream sends it plus its payload and the task now. */
export async function deliveryBody(db: Db, due: Due): Promise<string> {
  const at = parseTimestamp(due.event_at).toISOString();
  const task = due.task_id ? await loadTask(db, due.task_id) : null;
  const payload = due.payload ?? {};
  return JSON.stringify({
    type: due.type,
    timestamp: at,
    data: {
      eventId: due.event_id, taskId: due.task_id, queue: due.queue, type: due.type,
      actor: { id: due.actor_id, name: due.actor_name ?? "unknown", kind: due.actor_kind ?? "system" },
      version: typeof payload.version === "number" ? payload.version : null,
      status: typeof payload.status === "string" ? payload.status : null,
      at, payload, task,
    },
  });
}

async function sendOne(db: Db, due: Due): Promise<Outcome> {
  const secret = unsealSecret(due.secret_sealed);
  if (!secret) return { status: null, error: "the webhook's secret cannot be read: the server secret (NEXTAUTH_SECRET) changed; create the webhook again" };
  const body = await deliveryBody(db, due);
  const timestamp = Math.floor(Date.now() / 1000);
  return postDelivery(due.url, {
    "webhook-id": `evt_${due.event_id}`,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signDelivery(secret, `evt_${due.event_id}`, timestamp, body),
  }, body);
}

async function record(db: Db, clock: Clock, due: Due, outcome: Outcome): Promise<void> {
  const delivered = outcome.error === null;
  const gone = outcome.status === 410;
  const outOfTries = due.attempts >= MAX_TRIES;
  const retryIn = RETRY_DELAYS[Math.min(due.attempts, RETRY_DELAYS.length) - 1] ?? 0;
  await db.transaction(async (tx) => {
    await tx.execute(sql`
      UPDATE webhook_deliveries SET
        status = ${delivered ? "delivered" : gone || outOfTries ? "failed" : "pending"},
        last_status = ${outcome.status}, last_error = ${outcome.error},
        delivered_at = ${delivered ? clock.now() : null},
        next_attempt_at = ${clock.now()} + make_interval(secs => ${retryIn})
      -- A try that did not land leaves alone a delivery its webhook's delete or disable failed
      -- while it was on the wire; one that landed is recorded whatever happened meanwhile.
      WHERE id = ${due.id}::bigint AND (status = 'pending' OR ${delivered})`);
    if (!gone) return;
    // 410 Gone: the receiver says it is no more. Disable the webhook, drop what was still to
    // send, and leave the fact where supervisors look (the inbox's webhooks; the audit).
    const [disabled] = await tx.execute<{ id: string }>(sql`
      UPDATE webhooks SET disabled_at = ${clock.now()}, disabled_reason = 'the receiver answered 410 Gone'
      WHERE id = ${due.webhook_id}::uuid AND disabled_at IS NULL RETURNING id`);
    if (!disabled) return;
    await tx.execute(sql`
      UPDATE webhook_deliveries SET status = 'failed', last_error = 'its webhook was disabled (410 Gone)'
      WHERE webhook_id = ${due.webhook_id}::uuid AND status = 'pending'`);
    await recordAudit(tx, { id: SYSTEM_ACTOR_ID, name: "system", kind: "system" }, {
      action: "webhook_disabled", subject: { kind: "webhook", id: due.webhook_id, name: due.url }, detail: { status: 410 },
    });
  });
}

/** Sends what is due now (at most `limit`), concurrently; the number of deliveries tried. */
export async function sendDueDeliveries(db: Db, options: { clock?: Clock; limit?: number } = {}): Promise<number> {
  const clock = options.clock ?? databaseClock;
  const due = await claimDue(db, clock, options.limit ?? 20);
  await Promise.all(due.map(async (d) => record(db, clock, d, await sendOne(db, d).catch((e: unknown) => ({ status: null, error: String((e as Error)?.message ?? e) })))));
  return due.length;
}
