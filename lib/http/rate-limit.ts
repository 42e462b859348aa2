import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { executePrepared } from "@/db/hot-path";

// The API's limits live in PostgreSQL (rate_buckets, UNLOGGED), so every server instance
// counts against the same buckets and a restart forgets nothing: with N instances a token
// still gets its own limit, not N times it. A take is one statement; for a bearer token it
// is folded into the token lookup itself (lib/auth/tokens.ts), so it costs no round trip.

/** A token bucket: `capacity` requests at once, refilled at `perSecond`. */
export interface Limit {
  capacity: number;
  perSecond: number;
}

/**
 * The ON CONFLICT arm of a take: refill the row `b` for the time since its last take, then
 * take one whole token when there is one. `allowed` says which happened. now() is the
 * database's clock, the same for every instance.
 */
export function takeOnConflict(limit: Limit): SQL {
  const refilled = sql`least(${limit.capacity}::float8, b.tokens + extract(epoch FROM now() - b.at)::float8 * ${limit.perSecond}::float8)`;
  return sql`ON CONFLICT (key) DO UPDATE SET
      tokens = ${refilled} - CASE WHEN ${refilled} >= 1 THEN 1 ELSE 0 END,
      allowed = ${refilled} >= 1,
      at = now()`;
}

/** Seconds until the bucket holds a whole token again, from a take's answer (0: it was allowed). */
export function waitOf(limit: Limit, row: { allowed: boolean; tokens: number } | undefined): number {
  if (!row || row.allowed) return 0;
  return Math.max(1, Math.ceil((1 - Number(row.tokens)) / limit.perSecond));
}

/** Takes one request's worth from `key`'s bucket; 0 when allowed, else seconds to wait. */
export async function take(db: Executor, key: string, limit: Limit): Promise<number> {
  const [row] = await executePrepared<{ allowed: boolean; tokens: number }>(db, sql`
    INSERT INTO rate_buckets AS b (key, tokens, allowed, at) VALUES (${key}, ${limit.capacity}::float8 - 1, true, now())
    ${takeOnConflict(limit)}
    RETURNING b.tokens, b.allowed`);
  purgeNowAndThen(db);
  return waitOf(limit, row);
}

const numberFromEnv = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};

/** Per token (or signed-in person): 100 requests/s sustained, bursts of 200; failed authentications: 10/minute per address, bursts of 20. */
export function limits(): { perToken: Limit; failedAuth: Limit } {
  return {
    perToken: { capacity: numberFromEnv("RATE_LIMIT_BURST", 200), perSecond: numberFromEnv("RATE_LIMIT_PER_SECOND", 100) },
    failedAuth: { capacity: numberFromEnv("AUTH_FAILURE_BURST", 20), perSecond: numberFromEnv("AUTH_FAILURES_PER_MINUTE", 10) / 60 },
  };
}

/** A token's (or signed-in person's) bucket key; the token lookup builds the same key in SQL. */
export const TOKEN_KEY_PREFIX = "token:";
export const tokenKey = (tokenId: string) => `${TOKEN_KEY_PREFIX}${tokenId}`;
export const addressKey = (address: string) => `auth:${address}`;

const PURGE_EVERY_MS = 60_000;
let lastPurge = 0;

/**
 * A bucket left alone until it is full again is the same as no row, so rows idle for longer
 * than any bucket takes to refill are deleted — at most once a minute per process, off the
 * request's path — and addresses that failed once do not pile up.
 */
export function purgeNowAndThen(db: Executor) {
  const now = Date.now();
  if (now - lastPurge < PURGE_EVERY_MS) return;
  lastPurge = now;
  const idleSeconds = Math.ceil(Math.max(...Object.values(limits()).map((l) => l.capacity / l.perSecond))) + 60;
  void db.execute(sql`DELETE FROM rate_buckets WHERE at < now() - make_interval(secs => ${idleSeconds})`).catch(() => {});
}
