import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, Executor } from "@/db/client";
import { actors, users, type UserRole } from "@/db/schema";
import { text } from "@/lib/tasks/schemas";
import type { ActorRef } from "@/lib/tasks/types";
import { hashPassword } from "./passwords";

export const createUserInput = z.strictObject({
  email: z.email("must be an email address").max(254),
  name: text(100, 1),
  role: z.enum(["staff", "supervisor"], "must be staff or supervisor"),
  password: text(200, 8),
});

export interface UserAccount {
  actor: ActorRef;
  email: string;
  role: UserRole;
  disabled: boolean;
}

/** A person who signs in; fails with a readable Error when the email is taken. */
export async function createUser(db: Db, input: z.input<typeof createUserInput>): Promise<UserAccount> {
  const parsed = createUserInput.parse(input);
  const passwordHash = await hashPassword(parsed.password);
  return db.transaction(async (tx) => {
    const [taken] = await tx.select({ id: users.actorId }).from(users).where(eq(sql`lower(${users.email})`, parsed.email.toLowerCase()));
    if (taken) throw new Error(`a user with email ${parsed.email} already exists`);
    const [actor] = await tx.insert(actors).values({ kind: "user", name: parsed.name }).returning();
    await tx.insert(users).values({ actorId: actor!.id, email: parsed.email, role: parsed.role, passwordHash });
    return { actor: { id: actor!.id, name: actor!.name, kind: "user" }, email: parsed.email, role: parsed.role, disabled: false };
  });
}

/** The user's current role and status: sessions outlive role changes, so callers re-read this. */
export async function findUserAccount(db: Executor, actorId: string): Promise<UserAccount | null> {
  const [row] = await db
    .select({ email: users.email, role: users.role, disabled: users.disabled, actor: { id: actors.id, name: actors.name, kind: actors.kind } })
    .from(users)
    .innerJoin(actors, eq(actors.id, users.actorId))
    .where(eq(users.actorId, actorId));
  return row ?? null;
}
