import { createHash, randomBytes } from "node:crypto";
import { and, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import { actors, passwordResets, users } from "@/db/schema";
import { defineOperation } from "@/lib/tasks";
import { SUPERVISORS, fail, ok, type Result } from "@/lib/tasks/model";
import { recordAudit } from "./audit";

// Issuing a one-time password reset link (docs/security.md): /people's "Reset link" and the
// CLI's `user reset-link`, which the sign-in page names for whoever forgot a password. Apart
// from redeeming (password-reset.ts) because this needs nothing that is server-only, so the
// CLI loads it outside Next.js.

/** A reset link is good for this long, once. */
export const RESET_LINK_HOURS = 24;

export const issuePasswordResetInput = z.strictObject({ actorId: z.uuid("must be a person's id") });

/** What is kept of a link's secret: its SHA-256, hex. */
export const resetDigest = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");
const digest = resetDigest;

/**
 * A one-time reset link's secret for a person (shown once to the supervisor; only its hash is
 * kept). Any earlier unused link for the same person is spent, so only the newest works. A
 * supervisor's link is the CLI operator's to issue (audited with who issued it, as every link).
 */
export const issuePasswordReset = defineOperation({
  name: "issuePasswordReset",
  who: SUPERVISORS,
  input: issuePasswordResetInput,
  async run(tx, input, { actor, standing }): Promise<Result<{ token: string; expiresAt: Date; name: string }>> {
    const [person] = await tx
      .select({ name: actors.name, role: users.role })
      .from(users)
      .innerJoin(actors, eq(actors.id, users.actorId))
      .where(eq(users.actorId, input.actorId));
    if (!person) return fail({ code: "not_found", message: "No such person", field: "actorId" });
    // A link signs its holder in as the person: for a supervisor, one supervisor could become
    // another. Only whoever holds the database (the CLI's operator) issues those.
    if (person.role === "supervisor" && standing !== undefined && standing !== "operator") {
      return fail({ code: "forbidden", message: `${person.name} is a supervisor: their reset link is issued at the CLI (user reset-link --email …), not by another supervisor`, field: "actorId" });
    }
    await tx.update(passwordResets).set({ usedAt: sql`now()` }).where(and(eq(passwordResets.actorId, input.actorId), isNull(passwordResets.usedAt)));
    const token = randomBytes(32).toString("base64url");
    const [row] = await tx
      .insert(passwordResets)
      .values({ tokenHash: digest(token), actorId: input.actorId, createdBy: actor.id, expiresAt: sql`now() + make_interval(hours => ${RESET_LINK_HOURS})` })
      .returning({ expiresAt: passwordResets.expiresAt });
    await recordAudit(tx, actor, {
      action: "password_reset_issued",
      subject: { kind: "person", id: input.actorId, name: person.name },
      detail: { expiresAt: row!.expiresAt.toISOString() },
    });
    return ok({ token, expiresAt: row!.expiresAt, name: person.name });
  },
});

