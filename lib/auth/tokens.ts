import { hash, randomBytes, timingSafeEqual } from "node:crypto";
import { and, eq, isNull, lt, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Db, Executor, Tx } from "@/db/client";
import { actors, agentTokens, type TokenRole } from "@/db/schema";
import type { ActorRef } from "@/lib/tasks/model";
import type { ClaimScope } from "./claim-tokens";
import { executePrepared } from "@/db/hot-path";
import { purgeNowAndThen, takeOnConflict, TOKEN_KEY_PREFIX, waitOf, type Limit } from "@/lib/http/rate-limit";

/** Tokens read `cb_` + 43 base64url characters (256 random bits), so a leaked one is recognisable. */
export const TOKEN_PREFIX = "cb_";

export const tokenName = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, "must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' or '-'");

/** SHA-256 of the token, hex: one call (crypto.hash), a fifth of a Hash object's cost on every request. */
export function hashToken(token: string): string {
  return hash("sha256", token, "hex");
}

/** A fresh secret: the token itself (shown once), the prefix people see, and the hash stored. `cbc_` for claim tokens. */
export function newTokenSecret(prefix = TOKEN_PREFIX): { token: string; prefix: string; tokenHash: string } {
  const token = prefix + randomBytes(32).toString("base64url");
  return { token, prefix: token.slice(0, prefix.length + 6), tokenHash: hashToken(token) };
}

/** The stored hex digest against the presented token's, in constant time. */
export function sameDigest(stored: string, digest: string): boolean {
  return timingSafeEqual(Buffer.from(stored, "hex"), Buffer.from(digest, "hex"));
}

export interface TokenPrincipal {
  tokenId: string;
  role: TokenRole;
  actor: ActorRef;
  /** Set when the bearer was a claim token (cbc_): its task, attempt and ops; tokenId and actor are its agent token's. */
  claim?: ClaimScope;
}

export interface CreatedToken {
  /** The secret itself: shown once, never stored. */
  token: string;
  id: string;
  name: string;
  prefix: string;
  role: TokenRole;
  expiresAt: Date | null;
}

/** A new token's lifetime when its maker names none (null in the input: never expires). */
export const DEFAULT_TOKEN_DAYS = 90;
export const MAX_TOKEN_DAYS = 3650;
export const tokenExpiry = z
  .number("must be a whole number of days from 1 to 3650, or null for never")
  .int("must be a whole number of days from 1 to 3650, or null for never")
  .min(1, "must be a whole number of days from 1 to 3650, or null for never")
  .max(MAX_TOKEN_DAYS, "must be a whole number of days from 1 to 3650, or null for never")
  .nullable();

/**
 * A token's authority, in SQL over the agent_tokens row: not revoked, not expired, and — when a
 * person made it — that person still enabled and still a supervisor (the role that can make
 * tokens). A maker that is no person (the CLI's operator) is not checked: whoever runs the CLI
 * holds the database. Read on every request, so each of these ends the token at once.
 */
export const TOKEN_LIVE = sql.raw(`agent_tokens.revoked_at IS NULL
  AND (agent_tokens.expires_at IS NULL OR agent_tokens.expires_at > now())
  AND NOT EXISTS (SELECT 1 FROM users maker WHERE maker.actor_id = agent_tokens.created_by AND (maker.disabled OR maker.role <> 'supervisor'))`);

/**
 * A new token with its own agent actor; only its SHA-256 hash is stored. For seeds and tests:
 * the board's own surfaces create tokens through the createToken operation (lib/auth/token-admin.ts).
 */
export async function createAgentToken(db: Db, input: { name: string; role?: TokenRole; expiresInDays?: number | null }): Promise<CreatedToken> {
  const name = tokenName.parse(input.name);
  return db.transaction(async (tx) => {
    const created = await insertToken(tx, { name, role: input.role, expiresInDays: input.expiresInDays });
    if (!created) throw new Error(liveNameTaken(name));
    return created;
  });
}

export const liveNameTaken = (name: string) => `a live token named ${name} already exists; revoke it first or pick another name`;

/**
 * The token and its agent actor, in the caller's transaction; null when a live token has the
 * name. Two at once with one name run one after the other (the advisory lock), so the second
 * sees the first instead of failing on the unique index.
 */
export async function insertToken(
  tx: Tx,
  input: { name: string; role?: TokenRole; expiresInDays?: number | null; createdBy?: string },
): Promise<CreatedToken | null> {
  const { name } = input;
  const days = input.expiresInDays === undefined ? DEFAULT_TOKEN_DAYS : input.expiresInDays;
  const role = input.role ?? "agent";
  const { token, prefix, tokenHash } = newTokenSecret();
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`claimboard:token-name:${name}`}))`);
  const [taken] = await tx
    .select({ id: agentTokens.id })
    .from(agentTokens)
    .where(and(eq(agentTokens.name, name), isNull(agentTokens.revokedAt)));
  if (taken) return null;
  const [actor] = await tx.insert(actors).values({ kind: "agent", name }).returning();
  const [row] = await tx
    .insert(agentTokens)
    .values({
      actorId: actor!.id,
      name,
      prefix,
      tokenHash,
      role,
      createdBy: input.createdBy ?? null,
      expiresAt: days === null ? null : sql`now() + make_interval(days => ${days})`,
    })
    .returning();
  return { token, id: row!.id, name, prefix: row!.prefix, role, expiresAt: row!.expiresAt };
}

/** Revokes the live token of that name; false when there is none. Takes effect on the next request. */
export async function revokeAgentToken(db: Executor, name: string): Promise<boolean> {
  return (await revokeLiveToken(db, name)) !== null;
}

/** revokeAgentToken, answering which token it revoked. */
export async function revokeLiveToken(db: Executor, name: string): Promise<{ id: string; role: TokenRole } | null> {
  const [revoked] = await db
    .update(agentTokens)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(agentTokens.name, name), isNull(agentTokens.revokedAt)))
    .returning({ id: agentTokens.id, role: agentTokens.role });
  return revoked ?? null;
}

/**
 * The principal behind a bearer token, or null for a missing, malformed, unknown, revoked or
 * expired one (an OAuth access token's hour included), or one whose maker lost the standing to make it (TOKEN_LIVE). The lookup is by hash, so how long it takes says nothing about the secret;
 * the final comparison is constant-time all the same.
 */
export async function authenticateToken(db: Executor, token: string | null): Promise<TokenPrincipal | null> {
  if (!token || !token.startsWith(TOKEN_PREFIX) || token.length > 100) return null;
  const digest = hashToken(token);
  const [row] = await tokenLookup(db).execute({ digest });
  if (!row || !sameDigest(row.tokenHash, digest)) return null;
  await touchToken(db, row.id);
  return { tokenId: row.id, role: row.role, actor: row.actor };
}

/**
 * authenticateToken and the token's rate limit in one statement (the API's every request):
 * the lookup, and a take from the token's bucket in rate_buckets when the token is live.
 * `wait` is 0 when the request may go on, else the seconds to wait (Retry-After).
 */
export async function authenticateAndCount(
  db: Executor,
  token: string | null,
  limit: Limit,
): Promise<{ principal: TokenPrincipal; wait: number } | null> {
  if (!token || !token.startsWith(TOKEN_PREFIX) || token.length > 100) return null;
  const counted = await countedLookup<CountedRow>(db, hashToken(token), limit, (digest) => sql`
      SELECT agent_tokens.id, agent_tokens.role, agent_tokens.token_hash, a.id AS actor_id, a.name AS actor_name, a.kind AS actor_kind
      FROM agent_tokens JOIN actors a ON a.id = agent_tokens.actor_id
      WHERE agent_tokens.token_hash = ${digest} AND ${TOKEN_LIVE}`);
  return counted && { principal: principalOf(counted.row), wait: counted.wait };
}

export const principalOf = (row: CountedRow): TokenPrincipal => ({
  tokenId: row.id, role: row.role, actor: { id: row.actor_id, name: row.actor_name, kind: row.actor_kind },
});

/**
 * A bearer token's row, and a take from its agent token's bucket in rate_buckets when it is
 * live, in one statement. `principal` selects the row by the digest, with at least CountedRow's
 * columns (`id` the agent token whose bucket is taken from); a claim token's lookup
 * (lib/auth/claim-tokens.ts) adds its own. Null when no row matches the digest in constant time.
 */
export async function countedLookup<R extends CountedRow>(
  db: Executor,
  digest: string,
  limit: Limit,
  principal: (digest: string) => SQL,
): Promise<{ row: R; wait: number } | null> {
  const [row] = await executePrepared<R>(db, sql`
    WITH principal AS (${principal(digest)}
    ), bucket AS (
      INSERT INTO rate_buckets AS b (key, tokens, allowed, at)
      SELECT ${TOKEN_KEY_PREFIX}::text || id::text, ${limit.capacity}::float8 - 1, true, now() FROM principal
      ${takeOnConflict(limit)}
      RETURNING b.tokens, b.allowed
    )
    SELECT principal.*, bucket.tokens, bucket.allowed FROM principal LEFT JOIN bucket ON true`);
  if (!row || !sameDigest(row.token_hash, digest)) return null;
  await touchToken(db, row.id);
  purgeNowAndThen(db);
  return { row, wait: waitOf(limit, row) };
}

export interface CountedRow extends Record<string, unknown> {
  id: string;
  role: TokenRole;
  token_hash: string;
  actor_id: string;
  actor_name: string;
  actor_kind: ActorRef["kind"];
  tokens: number;
  allowed: boolean;
}

/**
 * Every API request looks its token up — read from the database each time, so a revocation
 * holds from the very next request on every instance. The statement is built once per
 * database handle and runs as a named prepared statement: building it per request was most
 * of drizzle's share of an API call's CPU (CHANGELOG.md).
 */
function buildTokenLookup(db: Executor) {
  return db
    .select({
      id: agentTokens.id,
      role: agentTokens.role,
      tokenHash: agentTokens.tokenHash,
      actor: { id: actors.id, name: actors.name, kind: actors.kind },
    })
    .from(agentTokens)
    .innerJoin(actors, eq(actors.id, agentTokens.actorId))
    .where(and(eq(agentTokens.tokenHash, sql.placeholder("digest")), TOKEN_LIVE))
    .prepare("claimboard_token_lookup");
}

const tokenLookups = new WeakMap<Executor, ReturnType<typeof buildTokenLookup>>();

function tokenLookup(db: Executor) {
  let lookup = tokenLookups.get(db);
  if (!lookup) tokenLookups.set(db, (lookup = buildTokenLookup(db)));
  return lookup;
}

/** When this process last wrote each token's last_used_at (ms); bounded, oldest dropped first. */
const touchedAt = new Map<string, number>();
const TOUCH_EVERY_MS = 60_000;

/**
 * last_used_at, written at most once a minute per token so busy agents cost no extra writes.
 * The guard in SQL keeps that true across server processes; remembering the last write here
 * also spares the statement itself (a round trip per request on the hot path, see
 * CHANGELOG.md) while the minute has not passed.
 */
async function touchToken(db: Executor, id: string): Promise<void> {
  const now = Date.now();
  if (now - (touchedAt.get(id) ?? -Infinity) < TOUCH_EVERY_MS) return;
  touchedAt.delete(id);
  touchedAt.set(id, now);
  if (touchedAt.size > 10_000) touchedAt.delete(touchedAt.keys().next().value!);
  await db
    .update(agentTokens)
    .set({ lastUsedAt: sql`now()` })
    .where(and(eq(agentTokens.id, id), or(isNull(agentTokens.lastUsedAt), lt(agentTokens.lastUsedAt, sql`now() - interval '1 minute'`))));
}

/** The token from an `Authorization: Bearer …` header; null when absent or of another scheme. */
export function bearerToken(header: string | null): string | null {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1] ?? null;
}
