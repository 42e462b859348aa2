import { and, desc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Executor } from "@/db/client";
import { queues, webhookDeliveries, webhooks, type WebhookDeliveryRow, type WebhookRow } from "@/db/schema";
import { didYouMean, nearestQueue, defineOperation } from "@/lib/tasks";
import { SUPERVISORS, fail, ok } from "@/lib/tasks/model";
import { recordAudit } from "@/lib/auth/audit";
import { createWebhookInput, webhookIdInput, type listDeliveriesInput } from "./schemas";
import { newWebhookSecret, sealSecret } from "./secret";
import { urlRefusal } from "./targets";
import { matchedBy } from "./matching";

// Webhooks registered and removed by supervisors (API, /webhooks, CLI): engine operations, each
// audited in its transaction. Reads (the list, a delivery log) are plain functions.

/** A webhook as the API answers it: never its secret. */
export interface Webhook {
  id: string;
  url: string;
  events: string[];
  queues: string[] | null;
  description: string;
  createdAt: Date;
  disabledAt: Date | null;
  disabledReason: string | null;
  /** Paused because the authority it acts with ended (lib/auth/authority.ts) until a supervisor adopts it; null while it holds. */
  authorityEndedAt: Date | null;
  authorityEndedReason: string | null;
}

export interface WebhookDelivery {
  id: string;
  eventId: string;
  type: string;
  taskId: string | null;
  queue: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  nextAttemptAt: Date | null;
  lastStatus: number | null;
  lastError: string | null;
  lastAttemptAt: Date | null;
  deliveredAt: Date | null;
  eventAt: Date;
  /** The webhook's subscription this delivery matched: the event's type, the type it is delivered under (approved under completed), or "*". */
  matched: string;
}

export const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id, url: row.url, events: row.events, queues: row.queues, description: row.description,
  createdAt: row.createdAt, disabledAt: row.disabledAt, disabledReason: row.disabledReason,
  authorityEndedAt: row.authorityEndedAt, authorityEndedReason: row.authorityEndedReason,
});

const toDelivery = (row: WebhookDeliveryRow, events: readonly string[]): WebhookDelivery => ({
  matched: matchedBy(events, row.type) ?? row.type,
  id: row.id.toString(), eventId: row.eventId.toString(), type: row.type, taskId: row.taskId?.toString() ?? null,
  queue: row.queue, status: row.status as WebhookDelivery["status"], attempts: row.attempts,
  nextAttemptAt: row.status === "pending" ? row.nextAttemptAt : null, lastStatus: row.lastStatus, lastError: row.lastError,
  lastAttemptAt: row.lastAttemptAt, deliveredAt: row.deliveredAt, eventAt: row.eventAt,
});

/** Registers an endpoint; the secret is in this answer only (`whsec_…`), never stored in the clear. */
export const createWebhook = defineOperation({
  name: "createWebhook",
  who: SUPERVISORS,
  input: createWebhookInput,
  async run(tx, input, { actor }) {
    const refused = await urlRefusal(input.url);
    if (refused) return fail({ code: "invalid_request", message: refused, field: "url" });
    if (input.queues) {
      const known = await tx.select({ name: queues.name }).from(queues).where(inArray(queues.name, input.queues));
      const missing = input.queues.find((q) => !known.some((k) => k.name === q));
      if (missing) return fail({ code: "invalid_request", message: `queues: no queue is named ${missing}${didYouMean(await nearestQueue(tx, missing))}`, field: "queues" });
    }
    const secret = newWebhookSecret();
    const [row] = await tx.insert(webhooks).values({
      url: input.url, events: [...new Set(input.events)], queues: input.queues ? [...new Set(input.queues)] : null,
      description: input.description ?? "", secretSealed: sealSecret(secret), createdBy: actor.id,
    }).returning();
    await recordAudit(tx, actor, {
      action: "webhook_created", subject: { kind: "webhook", id: row!.id, name: row!.url },
      detail: { events: row!.events, queues: row!.queues },
    });
    return ok({ webhook: toWebhook(row!), secret });
  },
});

/** Deletes a webhook: nothing more is written for it, and what was still to send is not sent. */
export const deleteWebhook = defineOperation({
  name: "deleteWebhook",
  who: SUPERVISORS,
  input: webhookIdInput,
  async run(tx, { id }, { actor, clock }) {
    const [row] = await tx.update(webhooks)
      .set({ deletedAt: clock.now(), disabledAt: sql`coalesce(${webhooks.disabledAt}, ${clock.now()})`, disabledReason: sql`coalesce(${webhooks.disabledReason}, 'deleted')` })
      .where(and(eq(webhooks.id, id), isNull(webhooks.deletedAt)))
      .returning();
    if (!row) return fail({ code: "not_found", message: `No webhook ${id}` });
    await tx.update(webhookDeliveries)
      .set({ status: "failed", lastError: "the webhook was deleted" })
      .where(and(eq(webhookDeliveries.webhookId, id), eq(webhookDeliveries.status, "pending")));
    await recordAudit(tx, actor, { action: "webhook_deleted", subject: { kind: "webhook", id, name: row.url } });
    return ok({ deleted: id });
  },
});

/**
 * Adopts a webhook: it acts with the adopter's authority from now on, and one paused because its
 * maker's authority ended delivers again (events from now: what passed meanwhile was not queued).
 */
export const adoptWebhook = defineOperation({
  name: "adoptWebhook",
  who: SUPERVISORS,
  input: webhookIdInput,
  async run(tx, { id }, { actor, clock }) {
    const [before] = await tx.select({ reason: webhooks.authorityEndedReason }).from(webhooks)
      .where(and(eq(webhooks.id, id), isNull(webhooks.deletedAt))).for("update");
    if (!before) return fail({ code: "not_found", message: `No webhook ${id}` });
    const [row] = await tx.update(webhooks)
      .set({ adoptedBy: actor.id, adoptedAt: clock.now(), authorityEndedAt: null, authorityEndedReason: null })
      .where(eq(webhooks.id, id))
      .returning();
    await recordAudit(tx, actor, { action: "webhook_adopted", subject: { kind: "webhook", id, name: row!.url }, detail: { ended: before.reason } });
    return ok(toWebhook(row!));
  },
});

/** The webhooks not deleted, newest first. */
export async function listWebhooks(db: Executor): Promise<Webhook[]> {
  const rows = await db.select().from(webhooks).where(isNull(webhooks.deletedAt)).orderBy(desc(webhooks.createdAt));
  return rows.map(toWebhook);
}

/** A webhook's delivery log, newest first; null when there is no such webhook. */
export async function listDeliveries(db: Executor, input: z.infer<typeof listDeliveriesInput>): Promise<{ deliveries: WebhookDelivery[]; nextCursor: string | null } | null> {
  const [hook] = await db.select({ id: webhooks.id, events: webhooks.events }).from(webhooks).where(and(eq(webhooks.id, input.id), isNull(webhooks.deletedAt)));
  if (!hook) return null;
  const size = input.limit ?? 50;
  const rows = await db.select().from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.webhookId, input.id), input.before ? lt(webhookDeliveries.id, input.before) : undefined))
    .orderBy(desc(webhookDeliveries.id))
    .limit(size + 1);
  const deliveries = rows.slice(0, size).map((row) => toDelivery(row, hook.events));
  return { deliveries, nextCursor: rows.length > size ? deliveries.at(-1)!.id : null };
}

/**
 * Webhooks a receiver's 410 disabled (not deleted), or paused because their authority ended: the
 * inbox says so until a supervisor deletes, replaces or adopts them.
 */
export async function listDisabledWebhooks(db: Executor): Promise<Webhook[]> {
  const rows = await db.select().from(webhooks)
    .where(and(isNull(webhooks.deletedAt), sql`(${webhooks.disabledAt} IS NOT NULL OR ${webhooks.authorityEndedAt} IS NOT NULL)`))
    .orderBy(desc(sql`coalesce(${webhooks.disabledAt}, ${webhooks.authorityEndedAt})`));
  return rows.map(toWebhook);
}
