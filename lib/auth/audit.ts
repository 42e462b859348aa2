import { desc, eq, sql } from "drizzle-orm";
import type { Executor, Tx } from "@/db/client";
import { actors, auditEvents } from "@/db/schema";
import type { ActorRef } from "@/lib/tasks/model";
import { pauseEndedAuthority } from "./authority";

// The audit of people administration and tokens (db/schema/audit.ts): one row per change,
// written by the operation that made it, in its transaction; read by the people and agents
// pages. No "server-only": the CLI writes these too, outside Next.js.

export type AuditSubject = "person" | "token" | "webhook" | "schedule";

export type AuditAction =
  | "person_invited"
  | "role_changed"
  | "person_disabled"
  | "person_enabled"
  | "sign_in_unlocked"
  | "token_created"
  | "token_revoked"
  | "token_budget_set"
  | "webhook_created"
  | "webhook_deleted"
  | "webhook_disabled"
  | "webhook_paused"
  | "webhook_adopted"
  | "schedule_created"
  | "schedule_changed"
  | "schedule_paused"
  | "schedule_resumed"
  | "schedule_deleted"
  | "schedule_adopted"
  | "password_changed"
  | "password_reset_issued"
  | "password_reset_used";

export interface AuditRecord {
  action: AuditAction;
  subject: { kind: AuditSubject; id: string; name: string };
  detail?: Record<string, unknown>;
}

export interface AuditRow {
  id: string;
  action: AuditAction;
  actor: { id: string; name: string };
  subject: { kind: AuditSubject; id: string; name: string };
  detail: Record<string, unknown>;
  createdAt: Date;
}

/**
 * The channel an audited change of who may do what is announced on (lib/realtime/hub.ts):
 * each server's hub re-checks its open streams' grants at once, so a revoke, a disable or a
 * demotion ends the streams it takes the grant from without waiting for the periodic check.
 */
export const GRANTS_CHANNEL = "claimboard_grants";

/** Actions after which a grant may be gone (an invite, an enable or a new token takes none away). */
const NARROWING: ReadonlySet<AuditAction> = new Set(["role_changed", "person_disabled", "token_revoked"]);

/** The pages show this many, newest first. */
export const AUDIT_LIMIT = 50;

export async function recordAudit(tx: Tx, actor: ActorRef, record: AuditRecord): Promise<void> {
  await tx.insert(auditEvents).values({
    actorId: actor.id,
    action: record.action,
    subjectKind: record.subject.kind,
    subjectId: record.subject.id,
    subjectName: record.subject.name,
    detail: record.detail ?? {},
  });
  // In the same transaction: the hubs hear it when (and only if) the change commits.
  if (NARROWING.has(record.action)) {
    await tx.execute(sql`SELECT pg_notify(${GRANTS_CHANNEL}, ${`${record.subject.kind}:${record.subject.id}`})`);
    // What the person or token set up pauses with the authority it acted with, in this transaction.
    await pauseEndedAuthority(tx);
  }
}

/** The newest records about people or about tokens, with who did each (audit_events_subject_kind). */
export async function listAudit(db: Executor, kind: AuditSubject, limit = AUDIT_LIMIT): Promise<AuditRow[]> {
  const rows = await db
    .select({
      id: auditEvents.id,
      action: auditEvents.action,
      actorId: actors.id,
      actorName: actors.name,
      subjectId: auditEvents.subjectId,
      subjectName: auditEvents.subjectName,
      detail: auditEvents.detail,
      createdAt: auditEvents.createdAt,
    })
    .from(auditEvents)
    .innerJoin(actors, eq(actors.id, auditEvents.actorId))
    .where(eq(auditEvents.subjectKind, kind))
    .orderBy(desc(auditEvents.id))
    .limit(limit);
  return rows.map((r) => ({
    id: String(r.id),
    action: r.action as AuditAction,
    actor: { id: r.actorId, name: r.actorName },
    subject: { kind, id: r.subjectId, name: r.subjectName },
    detail: (r.detail ?? {}) as Record<string, unknown>,
    createdAt: r.createdAt,
  }));
}
