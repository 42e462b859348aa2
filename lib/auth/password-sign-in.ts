import "server-only";
import { eq, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { users } from "@/db/schema";
import { UNKNOWN_ADDRESS } from "@/lib/http/client-address";
import { TOO_MANY_ATTEMPTS } from "./login-throttle";
import { isLocked, lockPolicies, recordFailure } from "./sign-in-lockout";
import { SIGN_IN_LIMITS, verifyPassword } from "./passwords";

// A hash of a password nobody has: unknown emails cost the same argon2 work as known ones.
const DUMMY_HASH = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$2xXTo52JUtMG5ep7MHdXT5kNaU1vJJXmq5FuF8MHrJU";

/**
 * One answer for every failure (unknown email, wrong password, disabled account): null,
 * which the form shows as "Wrong email or password." Throttled keys are refused before any
 * work, with the same refusal for known and unknown emails (lib/auth/sign-in-lockout.ts).
 */
export async function signInWithPassword(db: Executor, email: string, password: string, address: string) {
  const account = email.trim().toLowerCase();
  if (account.length > SIGN_IN_LIMITS.email) return null; // no such account: nothing to count it against
  const policies = lockPolicies();
  // Without a trusted proxy every caller is "direct": one shared address key would let anyone
  // lock everybody out, so only the per-account window applies then.
  const byAddress = address !== UNKNOWN_ADDRESS;
  const [accountLocked, addressLocked] = await Promise.all([
    isLocked(db, "account", account, policies.account),
    byAddress ? isLocked(db, "address", address, policies.address) : false,
  ]);
  if (accountLocked || addressLocked) throw new Error(TOO_MANY_ATTEMPTS);
  // Too long to be anyone's password: a failure like any other, without the hash.
  const tooLong = password.length > SIGN_IN_LIMITS.password;
  const [user] = tooLong ? [] : await db.select().from(users).where(eq(sql`lower(${users.email})`, account));
  const valid = !tooLong && (await verifyPassword(user?.passwordHash ?? DUMMY_HASH, password));
  if (!user || !valid || user.disabled) {
    await Promise.all([
      recordFailure(db, "account", account, policies.account),
      byAddress ? recordFailure(db, "address", address, policies.address) : null,
    ]);
    return null;
  }
  return { id: user.actorId, email: user.email };
}
