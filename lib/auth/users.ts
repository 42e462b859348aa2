import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, Executor, Tx } from "@/db/client";
import { actors, users, type UserRole } from "@/db/schema";
import { lineText, text, type ActorRef } from "@/lib/tasks/model";
import { hashPassword } from "./passwords";

export const createUserInput = z.strictObject({
  email: z.email("must be an email address").max(254),
  name: lineText(100, 1),
  role: z.enum(["staff", "supervisor"], "must be staff or supervisor"),
  password: text(200, 8),
});

export interface UserAccount {
  actor: ActorRef;
  email: string;
  role: UserRole;
  disabled: boolean;
  /** Sessions issued in an older generation are over (sessionGeneration in the JWT, lib/auth/session.ts). */
  sessionGeneration: number;
}

/** A person who signs in; fails with a readable Error when the email is taken. */
export async function createUser(db: Db, input: z.input<typeof createUserInput>): Promise<UserAccount> {
  const parsed = createUserInput.parse(input);
  const passwordHash = await hashPassword(parsed.password);
  return db.transaction(async (tx) => {
    const user = await insertUser(tx, { ...parsed, passwordHash });
    if (!user) throw new Error(`a user with email ${parsed.email} already exists`);
    return user;
  });
}

/**
 * The person's actor and account, in the caller's transaction; null when someone already
 * signs in with that email (any case). Two at once with one email run one after the other
 * (the advisory lock), so the second sees the first instead of failing on the unique index.
 */
export async function insertUser(
  tx: Tx,
  input: { email: string; name: string; role: UserRole; passwordHash: string },
): Promise<UserAccount | null> {
  const email = input.email.toLowerCase();
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`claimboard:user-email:${email}`}))`);
  const [taken] = await tx.select({ id: users.actorId }).from(users).where(eq(sql`lower(${users.email})`, email));
  if (taken) return null;
  const [actor] = await tx.insert(actors).values({ kind: "user", name: input.name }).returning();
  await tx.insert(users).values({ actorId: actor!.id, email: input.email, role: input.role, passwordHash: input.passwordHash });
  return { actor: { id: actor!.id, name: actor!.name, kind: "user" }, email: input.email, role: input.role, disabled: false, sessionGeneration: 0 };
}

/** The user's current role and status: sessions outlive role changes, so callers re-read this. */
export async function findUserAccount(db: Executor, actorId: string): Promise<UserAccount | null> {
  const [row] = await db
    .select({ email: users.email, role: users.role, disabled: users.disabled, sessionGeneration: users.sessionGeneration, actor: { id: actors.id, name: actors.name, kind: actors.kind } })
    .from(users)
    .innerJoin(actors, eq(actors.id, users.actorId))
    .where(eq(users.actorId, actorId));
  return row ?? null;
}

/**
 * Ends every session of the person (a password changed or reset, the person disabled): their
 * generation moves on, and a session carrying an older one is refused on its next use. The
 * new generation, for the one session that is to go on (lib/auth/session-cookie.ts).
 */
export async function endSessions(tx: Executor, actorId: string): Promise<number> {
  const [row] = await tx
    .update(users)
    .set({ sessionGeneration: sql`${users.sessionGeneration} + 1`, updatedAt: sql`now()` })
    .where(eq(users.actorId, actorId))
    .returning({ generation: users.sessionGeneration });
  return row?.generation ?? 0;
}
