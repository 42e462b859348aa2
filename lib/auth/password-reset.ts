import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { actors, passwordResets, users } from "@/db/schema";
import { defineOperation } from "@/lib/tasks";
import { PEOPLE, fail, ok, type Result } from "@/lib/tasks/model";
import { recordAudit } from "./audit";
import { HASHING_BUSY, hashPassword, SIGN_IN_LIMITS, verifyPassword } from "./passwords";
import { admit, backoffPolicies, clearAccountFailures, forget, refund } from "./sign-in-backoff";
import { resetDigest as digest } from "./reset-link";
import { endSessions } from "./users";

// Passwords a person changes themselves, and redeeming the one-time reset links a supervisor
// issues (reset-link.ts) for someone who forgot theirs (no email: the supervisor hands the
// link over). docs/security.md.

/** A new password: 8 characters at least (what invite asks), at most what sign-in accepts. */
export const newPassword = z
  .string()
  .min(8, "must be at least 8 characters")
  .max(SIGN_IN_LIMITS.password, `must be at most ${SIGN_IN_LIMITS.password} characters`);

export { issuePasswordReset, issuePasswordResetInput, RESET_LINK_HOURS } from "./reset-link";


export const changeOwnPasswordInput = z.strictObject({ current: z.string().max(SIGN_IN_LIMITS.password), password: newPassword });

/** The signed-in person's own password, given the current one (a stolen session alone cannot change it). */
export const changeOwnPassword = defineOperation({
  name: "changeOwnPassword",
  who: PEOPLE,
  input: changeOwnPasswordInput,
  async run(tx, input, { actor }): Promise<Result<{ changed: true; sessionGeneration: number }>> {
    const [row] = await tx.select({ hash: users.passwordHash, email: users.email }).from(users).where(eq(users.actorId, actor.id)).for("update");
    if (!row) return fail({ code: "forbidden", message: "Only a person who signs in with a password has one to change" });
    // Decided before the current password is checked, so the answer says nothing about a guess.
    if (input.password === input.current) {
      return fail({ code: "invalid_request", field: "password", message: "password: the new password must differ from the current one" });
    }
    // A stolen session guessing the current password is backed off like sign-in, on the
    // account's own key (sign-in-backoff.ts): charged before the check, refunded by a success.
    const account = row.email.trim().toLowerCase();
    if (!(await admit(tx, "account", account, backoffPolicies().account))) {
      return fail({ code: "rate_limited", message: "Too many wrong current passwords: wait a while before trying again" });
    }
    const current = await verifyPassword(row.hash, input.current).catch((error: unknown) => {
      if (error instanceof Error && error.message === HASHING_BUSY) return null;
      throw error;
    });
    if (current === null) {
      await refund(tx, "account", account);
      return fail({ code: "unavailable", message: "Too many passwords are being checked right now: try again in a moment" });
    }
    if (!current) {
      return fail({ code: "invalid_request", field: "current", message: "current: that is not your current password" });
    }
    await forget(tx, "account", account);
    await tx.update(users).set({ passwordHash: await hashPassword(input.password), updatedAt: sql`now()` }).where(eq(users.actorId, actor.id));
    // Every session ends, a thief's too; the action carries the person's own into the new generation.
    const sessionGeneration = await endSessions(tx, actor.id);
    await recordAudit(tx, actor, { action: "password_changed", subject: { kind: "person", id: actor.id, name: actor.name } });
    return ok({ changed: true, sessionGeneration });
  },
});

/**
 * Uses a reset link: in one transaction the link is spent (a guarded UPDATE, so two uses at
 * once cannot both succeed), the password set and the account's sign-in backoff lifted. A
 * spent, superseded, expired or unknown link: not_found, nothing written.
 */
export async function redeemPasswordReset(db: Db, token: string, password: string): Promise<Result<{ email: string; actorId: string }>> {
  const parsed = newPassword.safeParse(password);
  if (!parsed.success) return fail({ code: "invalid_request", field: "password", message: `password: ${parsed.error.issues[0]?.message ?? "is invalid"}` });
  if (typeof token !== "string" || token.length > 100) return fail({ code: "not_found", message: "This reset link is not valid (used, replaced by a newer one, or expired)" });
  return db.transaction(async (tx) => {
    const [spent] = await tx
      .update(passwordResets)
      .set({ usedAt: sql`now()` })
      .where(and(eq(passwordResets.tokenHash, digest(token)), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, sql`now()`)))
      .returning({ actorId: passwordResets.actorId });
    if (!spent) return fail({ code: "not_found", message: "This reset link is not valid (used, replaced by a newer one, or expired)" });
    const [person] = await tx
      .update(users)
      .set({ passwordHash: await hashPassword(parsed.data), updatedAt: sql`now()` })
      .where(eq(users.actorId, spent.actorId))
      .returning({ email: users.email });
    const [actor] = await tx.select({ id: actors.id, name: actors.name, kind: actors.kind }).from(actors).where(eq(actors.id, spent.actorId));
    await endSessions(tx, spent.actorId); // whoever held a session of the account is out; the link's user signs in anew
    await clearAccountFailures(tx, person!.email);
    await recordAudit(tx, actor!, { action: "password_reset_used", subject: { kind: "person", id: actor!.id, name: actor!.name } });
    return ok({ email: person!.email, actorId: actor!.id });
  });
}
