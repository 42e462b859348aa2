import { sql, type SQL } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { SYSTEM_ACTOR_ID } from "@/lib/tasks";
import { recordAudit } from "./audit";

// What a person sets up acts with that person's authority (docs/security.md, "Authorities"). A
// webhook or a schedule acts for the actor who made it — a person, or a supervisor token — or
// for the supervisor who adopted it since. That authority ends when the person is disabled or
// is no longer a supervisor, or when the token is revoked, expires, is no longer a supervisor
// token, or its maker lost the standing to make it (TOKEN_LIVE's rule, lib/auth/tokens.ts).
// The CLI's operator (an actor that is no person's account nor any token's) holds the database
// itself, and the system acts for nobody: neither ends.
//
// Decided twice, by the same SQL: live, where a webhook delivers and a schedule ticks (so a
// lapse nobody has marked yet still sends and makes nothing), and marked, with its reason, on
// the webhook and schedule rows — in the transaction that ended the authority (recordAudit
// calls pauseEndedAuthority after a role change, a disable or a revoke) and at every schedule
// tick (expiries) — so /webhooks, /schedules and the inbox show it until someone adopts it.

/** SQL: why the authority of actor `actorId` (an SQL uuid expression) has ended, or NULL while it holds. */
export const authorityEnded = (actorId: SQL): SQL => sql`(
  SELECT CASE
    WHEN u.actor_id IS NOT NULL THEN CASE
      WHEN u.disabled THEN a.name || ' was disabled'
      WHEN u.role <> 'supervisor' THEN a.name || ' is no longer a supervisor' END
    WHEN k.id IS NOT NULL THEN CASE
      WHEN k.revoked_at IS NOT NULL THEN 'token ' || k.name || ' was revoked'
      WHEN k.expires_at IS NOT NULL AND k.expires_at <= now() THEN 'token ' || k.name || ' expired'
      WHEN k.role <> 'supervisor' THEN 'token ' || k.name || ' is no longer a supervisor token'
      WHEN m.actor_id IS NOT NULL AND (m.disabled OR m.role <> 'supervisor') THEN 'token ' || k.name || ' lost its maker''s authority' END
  END
  FROM actors a LEFT JOIN users u ON u.actor_id = a.id
    LEFT JOIN LATERAL (SELECT * FROM agent_tokens t WHERE t.actor_id = a.id ORDER BY t.created_at DESC LIMIT 1) k ON true
    LEFT JOIN users m ON m.actor_id = k.created_by
  WHERE a.id = ${actorId})`;

/** SQL over a webhooks or schedules row aliased `alias`: the actor it acts for. */
export const actsFor = (alias: string): SQL => sql.raw(`coalesce(${alias}.adopted_by, ${alias}.created_by)`);

const SYSTEM = { id: SYSTEM_ACTOR_ID, name: "system", kind: "system" as const };

/**
 * Pauses every live webhook and schedule whose authority has ended, with the reason; a paused
 * webhook's pending deliveries fail (they were the ended authority's). Audited, one row each, by
 * the system. Idempotent: an already paused one is left as it is. How many it paused.
 */
export async function pauseEndedAuthority(tx: Tx): Promise<number> {
  const hooks = await tx.execute<{ id: string; url: string; reason: string }>(sql`
    UPDATE webhooks w SET authority_ended_at = now(), authority_ended_reason = r.reason
    FROM (SELECT x.id, ${authorityEnded(actsFor("x"))} AS reason FROM webhooks x
          WHERE x.deleted_at IS NULL AND x.disabled_at IS NULL AND x.authority_ended_at IS NULL) r
    WHERE w.id = r.id AND r.reason IS NOT NULL
    RETURNING w.id::text, w.url, r.reason`);
  if (hooks.length > 0) {
    await tx.execute(sql`
      UPDATE webhook_deliveries SET status = 'failed', last_error = 'its webhook was paused: the authority it acted with ended'
      WHERE status = 'pending' AND webhook_id = ANY (${`{${hooks.map((h) => h.id).join(",")}}`}::uuid[])`);
  }
  const scheduled = await tx.execute<{ id: string; name: string; reason: string }>(sql`
    UPDATE schedules s SET authority_ended_at = now(), authority_ended_reason = r.reason
    FROM (SELECT x.id, ${authorityEnded(actsFor("x"))} AS reason FROM schedules x
          WHERE x.deleted_at IS NULL AND x.authority_ended_at IS NULL) r
    WHERE s.id = r.id AND r.reason IS NOT NULL
    RETURNING s.id::text, s.name, r.reason`);
  for (const h of hooks) {
    await recordAudit(tx, SYSTEM, { action: "webhook_paused", subject: { kind: "webhook", id: h.id, name: h.url }, detail: { reason: `authority ended: ${h.reason}` } });
  }
  for (const s of scheduled) {
    await recordAudit(tx, SYSTEM, { action: "schedule_paused", subject: { kind: "schedule", id: s.id, name: s.name }, detail: { reason: `authority ended: ${s.reason}` } });
  }
  return hooks.length + scheduled.length;
}
