import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";

// No "server-only": password-reset.ts reads it, and the CLI issues reset links through that.

/**
 * Sign-in backoff, kept in PostgreSQL (sign_in_backoff) so it holds across every server
 * instance and a supervisor can lift it. One row per key: the account (the email as typed,
 * lowercased — known or not, so the answer says nothing about which emails exist), a trusted
 * device of an account (lib/auth/device-cookie.ts), and the client address.
 *
 * Every attempt is charged BEFORE its password is evaluated, by one statement that takes the
 * key's row lock, decides and counts at once (`admit`): the first `free` attempts go through,
 * then each further one must wait a delay that doubles (base, 2×base, … up to max). A success
 * refunds its charge (`refund`). So N concurrent guesses for one account evaluate at most
 * `free` passwords — no read-then-write for them to slip through — and a guesser's rate falls
 * to about one guess per `max`. A key quiet for `quiet` seconds after its delay starts over.
 *
 * What keeps this from being a denial of service against one person: the delay is bounded
 * (max, default 15 minutes, not a lock held for as long as the attacker keeps sending), and a
 * browser that has signed in to the account before presents a device cookie and is counted
 * on its own device key, never on the account key a stranger can push. A supervisor's unlock
 * forgets the account's and its devices' rows at once.
 */
export type BackoffScope = "account" | "address" | "device";

export interface BackoffPolicy {
  /** Attempts (failed or in flight) allowed before any delay. */
  free: number;
  baseSeconds: number;
  maxSeconds: number;
  /** Quiet time after a key's delay ends after which its count starts over. */
  quietSeconds: number;
}

const fromEnv = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};

/**
 * Defaults: 5 free attempts per account (and per trusted device), 50 per address; then 15 s,
 * 30 s, 1 min, … up to 15 minutes; a key quiet for 15 minutes starts over (LOGIN_* override).
 */
export function backoffPolicies(): Record<BackoffScope, BackoffPolicy> {
  const timing = {
    baseSeconds: fromEnv("LOGIN_BACKOFF_BASE_SECONDS", 15),
    maxSeconds: fromEnv("LOGIN_BACKOFF_MAX_SECONDS", 15 * 60),
    quietSeconds: fromEnv("LOGIN_FAILURE_WINDOW_SECONDS", 15 * 60),
  };
  const perAccount = fromEnv("LOGIN_FAILURES_PER_ACCOUNT", 5);
  return {
    account: { free: perAccount, ...timing },
    device: { free: perAccount, ...timing },
    address: { free: fromEnv("LOGIN_FAILURES_PER_ADDRESS", 50), ...timing },
  };
}

/** The delay after the n-th counted attempt, in seconds: none before `free`, then doubling to max. */
const delay = (n: SQL, p: BackoffPolicy) =>
  sql`(CASE WHEN ${n} < ${p.free} THEN 0 ELSE least(${p.baseSeconds}::float8 * power(2, least(${n} - ${p.free}, 40)), ${p.maxSeconds}) END)`;

/**
 * Charges one attempt to `key` if it may make one now, in one statement: true when admitted.
 * The upsert waits for the key's row lock, so concurrent attempts see each other's charges.
 * "Now" for the wait is the clock when the row is read, not the transaction's start: a free
 * attempt sets next_at to its own now(), and a second sign-in of the same account whose
 * transaction began a moment earlier would otherwise find that in its future and be refused
 * as "too many" with no failure at all (two tabs, a double submit; an e2e run of 6 Dec 2026).
 * The same statement sweeps up to 100 rows of any key that have been quiet past `quiet`.
 */
export async function admit(db: Executor, scope: BackoffScope, key: string, p: BackoffPolicy): Promise<boolean> {
  const fresh = sql`b.next_at <= now() - make_interval(secs => ${p.quietSeconds})`;
  const counted = sql`(CASE WHEN ${fresh} THEN 1 ELSE b.failures + 1 END)`;
  const rows = await db.execute<{ failures: number }>(sql`
    WITH swept AS (
      DELETE FROM sign_in_backoff WHERE (scope, key) IN (
        SELECT scope, key FROM sign_in_backoff
        WHERE next_at <= now() - make_interval(secs => ${p.quietSeconds}) AND NOT (scope = ${scope} AND key = ${key})
        ORDER BY next_at LIMIT 100 FOR UPDATE SKIP LOCKED)
    )
    INSERT INTO sign_in_backoff AS b (scope, key, failures, next_at, last_at)
    VALUES (${scope}, ${key}, 1, now() + make_interval(secs => ${delay(sql`1`, p)}), now())
    ON CONFLICT (scope, key) DO UPDATE SET
      failures = ${counted},
      next_at = now() + make_interval(secs => ${delay(counted, p)}),
      last_at = now()
    WHERE b.next_at <= clock_timestamp()
    RETURNING failures`);
  return rows.length > 0;
}

/** Gives back one charged attempt (a success, or an attempt another key refused). */
export async function refund(db: Executor, scope: BackoffScope, key: string): Promise<void> {
  await db.execute(sql`
    UPDATE sign_in_backoff SET failures = greatest(failures - 1, 0), next_at = CASE WHEN failures <= 1 THEN now() ELSE next_at END
    WHERE scope = ${scope} AND key = ${key}`);
}

/** A success: the key's count is forgotten. */
export async function forget(db: Executor, scope: BackoffScope, key: string): Promise<void> {
  await db.execute(sql`DELETE FROM sign_in_backoff WHERE scope = ${scope} AND key = ${key}`);
}

/** The key a trusted device of `account` is counted on. */
export const deviceKey = (account: string, device: string) => `${account}|${device}`;

/**
 * Lifts an account's backoff: its own row and those of its trusted devices are forgotten (the
 * address rows are left alone: an unlock is for a person, not for a guessing address). Returns
 * the attempts forgotten.
 */
export async function clearAccountFailures(db: Executor, email: string): Promise<number> {
  const account = email.trim().toLowerCase();
  const rows = await db.execute<{ failures: number }>(sql`
    DELETE FROM sign_in_backoff
    WHERE (scope = 'account' AND key = ${account}) OR (scope = 'device' AND left(key, ${account.length + 1}) = ${`${account}|`})
    RETURNING failures`);
  return rows.reduce((sum, r) => sum + Number(r.failures), 0);
}
