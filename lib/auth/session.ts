import "server-only";
import { getServerSession } from "next-auth";
import { cache } from "react";
import { getDatabase } from "@/db";
import type { UserRole } from "@/db/schema";
import { authOptions } from "./options";
import { findUserAccount, type UserAccount } from "./users";

/**
 * The signed-in person as the database says now (role, disabled), once per request.
 * Null when nobody is signed in, the account is gone, or it was disabled, or the session is
 * of an older generation than the person's: their password changed or was reset, or they
 * were disabled, since it was issued (docs/security.md, "Sessions"). A session issued before
 * generations were kept carries none and counts as the first.
 */
export const currentUser = cache(async (): Promise<UserAccount | null> => {
  const session = (await getServerSession(authOptions)) as { actorId?: string; sessionGeneration?: number } | null;
  if (!session?.actorId) return null;
  const account = await findUserAccount(getDatabase().db, session.actorId);
  if (!account || account.disabled) return null;
  return (session.sessionGeneration ?? 0) === account.sessionGeneration ? account : null;
});

export const ROLES_AT_LEAST: Record<UserRole, UserRole[]> = {
  staff: ["staff", "supervisor"],
  supervisor: ["supervisor"],
};

export function hasRole(user: UserAccount | null, role: UserRole): user is UserAccount {
  return !!user && ROLES_AT_LEAST[role].includes(user.role);
}
