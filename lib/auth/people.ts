import "server-only";
import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { users, type UserRole } from "@/db/schema";
import { fail, ok, type Result } from "@/lib/tasks/types";
import { clearAccountFailures, lockPolicies } from "./sign-in-lockout";
import { createUser, createUserInput, type UserAccount } from "./users";

// People management for supervisors (docs/fleet.md, docs/security.md). The caller (a server
// action behind guardedAction("supervisor")) has checked the role; these check the rest.

const actorId = z.uuid("must be a person's id");
const role = z.enum(["staff", "supervisor"], "must be staff or supervisor");

/** Invite: email, name, role; the password is set here or, when left out, generated and shown once. */
export const invitePersonInput = createUserInput.extend({ password: createUserInput.shape.password.optional() });
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
  /** Sign-in refused now: the account's failures in the window reached the limit. */
  locked: boolean;
  /** Failed sign-ins inside the window. */
  failures: number;
}

export const PEOPLE_LIMIT = 1000;

/** Everyone who signs in, by name, with whether their sign-in is locked (sign_in_failures_key, one probe each). */
export async function listPeople(db: Db): Promise<PersonRow[]> {
  const { account } = lockPolicies();
  const rows = await db.execute<Record<string, unknown>>(sql`
    SELECT u.actor_id, a.name, u.email, u.role, u.disabled, u.created_at,
      (SELECT count(*)::int FROM (
         SELECT 1 FROM sign_in_failures f
         WHERE f.scope = 'account' AND f.key = lower(u.email) AND f.failed_at > now() - make_interval(secs => ${account.windowSeconds})
         LIMIT ${account.limit}) recent) AS failures
    FROM users u JOIN actors a ON a.id = u.actor_id
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
    locked: Number(r.failures) >= account.limit,
  }));
}

/** 16 random bytes as base64url: 128 bits, typed once by the invitee and then changed by nobody but them. */
const generatedPassword = () => randomBytes(16).toString("base64url");

export async function invitePerson(db: Db, input: z.infer<typeof invitePersonInput>): Promise<Result<{ person: UserAccount; password: string | null }>> {
  const password = input.password ?? generatedPassword();
  try {
    const person = await createUser(db, { ...input, password });
    return ok({ person, password: input.password ? null : password });
  } catch (error) {
    if (error instanceof Error && /already exists/.test(error.message)) {
      return fail({ code: "invalid_request", message: `Someone already signs in as ${input.email}`, field: "email" });
    }
    throw error;
  }
}

/**
 * A change that could leave the board without a supervisor. Every enabled supervisor's row
 * is locked first (FOR UPDATE), so two such changes at once run one after the other and the
 * second sees the first: two supervisors demoting each other cannot both succeed.
 */
async function keepingASupervisor(
  db: Db,
  target: string,
  losesSupervisor: (row: { role: UserRole; disabled: boolean }) => boolean,
  change: (tx: Parameters<Parameters<Db["transaction"]>[0]>[0]) => Promise<void>,
): Promise<Result<{ actorId: string }>> {
  return db.transaction(async (tx) => {
    const supervisors = await tx.execute<{ actor_id: string }>(sql`
      SELECT actor_id FROM users WHERE role = 'supervisor' AND NOT disabled ORDER BY actor_id FOR UPDATE`);
    const [row] = await tx.select({ role: users.role, disabled: users.disabled }).from(users).where(eq(users.actorId, target)).for("update");
    if (!row) return fail({ code: "not_found", message: "No such person", field: "actorId" });
    const isActiveSupervisor = supervisors.some((s) => s.actor_id === target);
    if (isActiveSupervisor && losesSupervisor(row) && supervisors.length === 1) {
      return fail({
        code: "invalid_request",
        message: "This is the only supervisor left: make someone else a supervisor first, so the board always has one",
        field: "actorId",
      });
    }
    await change(tx);
    return ok({ actorId: target });
  });
}

export async function setPersonRole(db: Db, input: z.infer<typeof setRoleInput>) {
  return keepingASupervisor(db, input.actorId, () => input.role !== "supervisor", async (tx) => {
    await tx.update(users).set({ role: input.role, updatedAt: sql`now()` }).where(eq(users.actorId, input.actorId));
  });
}

/** Disabled: refused at sign-in and, since every request re-reads the account, at once everywhere. */
export async function setPersonDisabled(db: Db, input: z.infer<typeof setDisabledInput>) {
  return keepingASupervisor(db, input.actorId, () => input.disabled, async (tx) => {
    await tx.update(users).set({ disabled: input.disabled, updatedAt: sql`now()` }).where(eq(users.actorId, input.actorId));
  });
}

/** Lifts a locked sign-in: the account's failed attempts are forgotten on every instance. */
export async function unlockSignIn(db: Db, input: z.infer<typeof unlockInput>): Promise<Result<{ actorId: string; cleared: number }>> {
  const [row] = await db.select({ email: users.email }).from(users).where(eq(users.actorId, input.actorId));
  if (!row) return fail({ code: "not_found", message: "No such person", field: "actorId" });
  return ok({ actorId: input.actorId, cleared: await clearAccountFailures(db, row.email) });
}
