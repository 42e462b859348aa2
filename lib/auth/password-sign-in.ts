import "server-only";
import { eq, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { users } from "@/db/schema";
import { UNKNOWN_ADDRESS } from "@/lib/http/client-address";
import { mintDevice, verifiedDevice } from "./device-cookie";
import { TOO_MANY_ATTEMPTS } from "./login-throttle";
import { admit, backoffPolicies, deviceKey, forget, refund, type BackoffScope } from "./sign-in-backoff";
import { HASHING_BUSY, SIGN_IN_LIMITS, verifyPassword } from "./passwords";

// A hash of a password nobody has: unknown emails cost the same argon2 work as known ones.
const DUMMY_HASH = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$2xXTo52JUtMG5ep7MHdXT5kNaU1vJJXmq5FuF8MHrJU";

export interface SignedIn {
  id: string;
  email: string;
  /** A new device cookie value to set (none when the browser presented a valid one). */
  device?: string;
}

/**
 * One answer for every failure (unknown email, wrong password, disabled account): null,
 * which the form shows as "Wrong email or password." Each attempt is first admitted by the
 * backoff (lib/auth/sign-in-backoff.ts) — the address's key, then the account's, or the
 * trusted device's when the browser presents a device cookie valid for this account — and a
 * key that must wait refuses before any work (TOO_MANY_ATTEMPTS, the right password too, or a
 * guesser would learn when it hit), the same for known and unknown emails.
 */
export async function signInWithPassword(
  db: Executor,
  email: string,
  password: string,
  address: string,
  deviceCookie?: string,
): Promise<SignedIn | null> {
  const account = email.trim().toLowerCase();
  if (account.length > SIGN_IN_LIMITS.email) return null; // no such account: nothing to count it against
  const policies = backoffPolicies();
  const device = verifiedDevice(account, deviceCookie);
  const own: [BackoffScope, string] = device ? ["device", deviceKey(account, device)] : ["account", account];
  // Without a trusted proxy every caller is "direct": one shared address key would let anyone
  // slow everybody down, so only the account's (or device's) key applies then.
  const byAddress = address !== UNKNOWN_ADDRESS;
  if (byAddress && !(await admit(db, "address", address, policies.address))) throw new Error(TOO_MANY_ATTEMPTS);
  if (!(await admit(db, own[0], own[1], policies[own[0]]))) {
    if (byAddress) await refund(db, "address", address);
    throw new Error(TOO_MANY_ATTEMPTS);
  }
  // Too long to be anyone's password: a failure like any other, without the hash.
  const tooLong = password.length > SIGN_IN_LIMITS.password;
  const [user] = tooLong ? [] : await db.select().from(users).where(eq(sql`lower(${users.email})`, account));
  let valid = false;
  try {
    valid = !tooLong && (await verifyPassword(user?.passwordHash ?? DUMMY_HASH, password));
  } catch (error) {
    if (!(error instanceof Error && error.message === HASHING_BUSY)) throw error;
    // Shed before hashing (passwords.ts): not an attempt, so its charges are given back.
    await Promise.all([refund(db, own[0], own[1]), byAddress ? refund(db, "address", address) : null]);
    throw new Error(TOO_MANY_ATTEMPTS);
  }
  if (!user || !valid || user.disabled) return null; // the charges stand
  await Promise.all([forget(db, own[0], own[1]), byAddress ? refund(db, "address", address) : null]);
  const fresh = device ? null : mintDevice(account);
  return { id: user.actorId, email: user.email, ...(fresh ? { device: fresh } : {}) };
}
