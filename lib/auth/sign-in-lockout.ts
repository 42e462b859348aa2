import "server-only";
import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";

/**
 * Failed sign-ins, kept in PostgreSQL (sign_in_failures) so the lock holds across every
 * server instance and a supervisor can lift it. Counted per account (the email as typed,
 * lowercased — known or not, so the lock says nothing about which emails exist) and per
 * client address. Once a key has `limit` failures inside the window, every attempt on it is
 * refused — the right password too, or a guesser would learn when it hit — until the oldest
 * failure ages out or a supervisor unlocks the account. The database clock decides the window.
 */
export type LockScope = "account" | "address";

export interface LockPolicy {
  limit: number;
  windowSeconds: number;
}

const fromEnv = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};

/** Defaults: 5 failures per account and 50 per address in 15 minutes (LOGIN_* variables override). */
export function lockPolicies(): Record<LockScope, LockPolicy> {
  const windowSeconds = fromEnv("LOGIN_FAILURE_WINDOW_SECONDS", 15 * 60);
  return {
    account: { limit: fromEnv("LOGIN_FAILURES_PER_ACCOUNT", 5), windowSeconds },
    address: { limit: fromEnv("LOGIN_FAILURES_PER_ADDRESS", 50), windowSeconds },
  };
}

/** Whether `key` has `limit` failures in the window: stops reading at the limit (sign_in_failures_key). */
export async function isLocked(db: Executor, scope: LockScope, key: string, policy: LockPolicy): Promise<boolean> {
  const [row] = await db.execute<{ n: number }>(sql`
    SELECT count(*)::int AS n FROM (
      SELECT 1 FROM sign_in_failures
      WHERE scope = ${scope} AND key = ${key} AND failed_at > now() - make_interval(secs => ${policy.windowSeconds})
      LIMIT ${policy.limit}
    ) recent`);
  return Number(row?.n ?? 0) >= policy.limit;
}

/**
 * One failure of `key`. The same statement forgets that key's failures older than the window
 * and up to 100 expired rows of any key (oldest first), so the table holds about one window
 * of failures however many keys a sprayer tries.
 */
export async function recordFailure(db: Executor, scope: LockScope, key: string, policy: LockPolicy): Promise<void> {
  await db.execute(sql`
    WITH expired AS (
      DELETE FROM sign_in_failures WHERE id IN (
        SELECT id FROM sign_in_failures WHERE failed_at <= now() - make_interval(secs => ${policy.windowSeconds}) ORDER BY id LIMIT 100
      ) OR (scope = ${scope} AND key = ${key} AND failed_at <= now() - make_interval(secs => ${policy.windowSeconds}))
    )
    INSERT INTO sign_in_failures (scope, key) VALUES (${scope}, ${key})`);
}

/** Lifts an account's lock: its failures are forgotten (the address window is left alone). */
export async function clearAccountFailures(db: Executor, email: string): Promise<number> {
  const rows = await db.execute<{ id: string }>(sql`
    DELETE FROM sign_in_failures WHERE scope = 'account' AND key = ${email.trim().toLowerCase()} RETURNING id`);
  return rows.length;
}
