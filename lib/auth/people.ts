import "server-only";
import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, Tx } from "@/db/client";
import { actors, users, type UserRole } from "@/db/schema";
import { defineOperation } from "@/lib/tasks";
import { SUPERVISORS, fail, ok, type Result } from "@/lib/tasks/model";
import { personChanged } from "@/lib/oauth/grants";
import { recordAudit } from "./audit";
import { backoffPolicies, clearAccountFailures } from "./sign-in-backoff";
import { endSessions } from "./users";

export { invitePerson } from "./invite";

// People management (docs/fleet.md, docs/security.md): engine operations for supervisors and
// the CLI's operator (`who`), each writing its audit record (lib/auth/audit.ts) in its
// transaction. A change that changes nothing writes nothing.

const actorId = z.uuid("must be a person's id");
const role = z.enum(["staff", "supervisor"], "must be staff or supervisor");

export const setRoleInput = z.strictObject({ actorId, role });
export const setDisabledInput = z.strictObject({ actorId, disabled: z.boolean() });
export const unlockInput = z.strictObject({ actorId });

export interface PersonRow {
  actorId: string;
  name: string;
  email: string;
  role: UserRole;
  disabled: boolean;
  createdAt: Date;
  /** Sign-in refused now: the account's backoff makes its next attempt wait (a trusted browser still gets in). */
  locked: boolean;
  /** Sign-in attempts counted against the account (failed, or refused while it waited). */
  failures: number;
}

export const PEOPLE_LIMIT = 1000;

/** Everyone who signs in, by name, with whether their sign-in must wait (sign_in_backoff's key, one probe each). */
export async function listPeople(db: Db): Promise<PersonRow[]> {
  const { account } = backoffPolicies();
  const rows = await db.execute<Record<string, unknown>>(sql`
    SELECT u.actor_id, a.name, u.email, u.role, u.disabled, u.created_at,
      coalesce(b.failures, 0) AS failures, coalesce(b.next_at > now(), false) AS locked
    FROM users u JOIN actors a ON a.id = u.actor_id
    LEFT JOIN sign_in_backoff b ON b.scope = 'account' AND b.key = lower(u.email)
      AND b.next_at > now() - make_interval(secs => ${account.quietSeconds})
    ORDER BY lower(a.name), u.email
    LIMIT ${PEOPLE_LIMIT}`);
  return rows.map((r) => ({
    actorId: String(r.actor_id),
    name: String(r.name),
    email: String(r.email),
    role: r.role as UserRole,
    disabled: Boolean(r.disabled),
    createdAt: r.created_at instanceof Date ? r.created_at : new Date(String(r.created_at)),
    failures: Number(r.failures),
    locked: Boolean(r.locked),
  }));
}

interface Target {
  role: UserRole;
  disabled: boolean;
  name: string;
  email: string;
}

/**
 * A change that could leave the board without a supervisor. Every enabled supervisor's row
 * is locked first (FOR UPDATE), so two such changes at once run one after the other and the
 * second sees the first: two supervisors demoting each other cannot both succeed.
 */
async function keepingASupervisor(
  tx: Tx,
  target: string,
  losesSupervisor: (row: Target) => boolean,
  change: (row: Target) => Promise<void>,
): Promise<Result<{ actorId: string }>> {
  const supervisors = await tx.execute<{ actor_id: string }>(sql`
    SELECT actor_id FROM users WHERE role = 'supervisor' AND NOT disabled ORDER BY actor_id FOR UPDATE`);
  const [row] = await tx
    .select({ role: users.role, disabled: users.disabled, name: actors.name, email: users.email })
    .from(users)
    .innerJoin(actors, eq(actors.id, users.actorId))
    .where(eq(users.actorId, target))
    .for("update", { of: users });
  if (!row) return fail({ code: "not_found", message: "No such person", field: "actorId" });
  const isActiveSupervisor = supervisors.some((s) => s.actor_id === target);
  if (isActiveSupervisor && losesSupervisor(row) && supervisors.length === 1) {
    return fail({
      code: "invalid_request",
      message: "This is the only supervisor left: make someone else a supervisor first, so the board always has one",
      field: "actorId",
    });
  }
  await change(row);
  return ok({ actorId: target });
}

const personSubject = (actorId: string, row: Target) => ({ kind: "person" as const, id: actorId, name: row.name });

export const setPersonRole = defineOperation({
  name: "setPersonRole",
  who: SUPERVISORS,
  input: setRoleInput,
  run: (tx, input, { actor }) =>
    keepingASupervisor(tx, input.actorId, () => input.role !== "supervisor", async (row) => {
      if (row.role === input.role) return;
      await tx.update(users).set({ role: input.role, updatedAt: sql`now()` }).where(eq(users.actorId, input.actorId));
      await recordAudit(tx, actor, { action: "role_changed", subject: personSubject(input.actorId, row), detail: { from: row.role, to: input.role } });
      await personChanged(tx, input.actorId, { role: input.role });
    }),
});

/** Disabled: refused at sign-in and, since every request re-reads the account, at once everywhere. */
export const setPersonDisabled = defineOperation({
  name: "setPersonDisabled",
  who: SUPERVISORS,
  input: setDisabledInput,
  run: (tx, input, { actor }) =>
    keepingASupervisor(tx, input.actorId, () => input.disabled, async (row) => {
      if (row.disabled === input.disabled) return;
      await tx.update(users).set({ disabled: input.disabled, updatedAt: sql`now()` }).where(eq(users.actorId, input.actorId));
      // Their sessions end for good: enabled again, they sign in anew.
      if (input.disabled) await endSessions(tx, input.actorId);
      await recordAudit(tx, actor, { action: input.disabled ? "person_disabled" : "person_enabled", subject: personSubject(input.actorId, row) });
      // Their MCP connections (OAuth) end with them, not at the next refresh.
      if (input.disabled) await personChanged(tx, input.actorId, { disabled: true });
    }),
});

/** Lifts a locked sign-in: the account's failed attempts are forgotten on every instance. */
export const unlockSignIn = defineOperation({
  name: "unlockSignIn",
  who: SUPERVISORS,
  input: unlockInput,
  async run(tx, input, { actor }): Promise<Result<{ actorId: string; cleared: number }>> {
    const [row] = await tx
      .select({ email: users.email, name: actors.name })
      .from(users)
      .innerJoin(actors, eq(actors.id, users.actorId))
      .where(eq(users.actorId, input.actorId));
    if (!row) return fail({ code: "not_found", message: "No such person", field: "actorId" });
    const cleared = await clearAccountFailures(tx, row.email);
    if (cleared > 0) {
      await recordAudit(tx, actor, { action: "sign_in_unlocked", subject: { kind: "person", id: input.actorId, name: row.name }, detail: { cleared } });
    }
    return ok({ actorId: input.actorId, cleared });
  },
});
