import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db, Tx } from "@/db/client";
import { actors, agentTokens, oauthCodes, oauthConnections, oauthRefreshTokens, users } from "@/db/schema";
import { recordAudit } from "@/lib/auth/audit";
import { hashToken, insertToken, newTokenSecret } from "@/lib/auth/tokens";
import { ACCESS_TOKEN_SECONDS, CODE_SECONDS, REFRESH_TOKEN_SECONDS, parseScope, roleOf, type Scope } from "./config";
import { fail, type OAuthFailure } from "./errors";
import { findClient } from "./clients";

// The grants of Claimboard's authorization server: a one-time code issued when a person
// approves a client (the consent page), spent with its PKCE verifier for a connection; and
// refresh tokens, each good once. A connection is an agent token of its own (listed on
// /agents, revocable there like any other), whose secret — the access token — expires after
// ACCESS_TOKEN_SECONDS and is replaced at every refresh. Everything happens in one
// transaction per request, the rows locked, so two requests with one code or one refresh
// token cannot both win. A spent code or refresh token used again is taken as stolen: the
// whole connection (its token, every refresh token of the family) is revoked, and audited.

export interface Tokens {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

type Outcome = { ok: true; tokens: Tokens } | { ok: false; failure: OAuthFailure };
const refused = (failure: OAuthFailure): Outcome => ({ ok: false, failure });

/** PKCE S256 (RFC 7636 §4.6): base64url(SHA-256(verifier)), compared in constant time. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(createHash("sha256").update(verifier, "ascii").digest("base64url"));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

export const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
export const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export interface Approval {
  clientId: string;
  /** The signed-in person's actor id. */
  personId: string;
  redirectUri: string;
  scopes: Scope[];
  codeChallenge: string;
  resource: string | null;
}

/** What the consent page calls once the person approved: a one-time code for the client's redirect. */
export async function issueCode(db: Db, approval: Approval): Promise<string> {
  const code = randomBytes(32).toString("base64url");
  await db.insert(oauthCodes).values({
    codeHash: hashToken(code),
    clientId: approval.clientId,
    personId: approval.personId,
    redirectUri: approval.redirectUri,
    scope: approval.scopes.join(" "),
    codeChallenge: approval.codeChallenge,
    resource: approval.resource,
    expiresAt: sql`now() + make_interval(secs => ${CODE_SECONDS})`,
  });
  return code;
}

/** The person behind a code or connection, if they may still sign in; with whether they are a supervisor. */
async function livePerson(tx: Tx, personId: string) {
  const [person] = await tx
    .select({ id: actors.id, name: actors.name, kind: actors.kind, role: users.role, disabled: users.disabled })
    .from(users)
    .innerJoin(actors, eq(actors.id, users.actorId))
    .where(eq(users.actorId, personId));
  return person && !person.disabled ? person : null;
}

/** The scopes a person may hold now: board:supervise only while they are a supervisor. */
const allowedFor = (scopes: Scope[], role: string) => scopes.filter((s) => s !== "board:supervise" || role === "supervisor");

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 32) || "client";

async function newRefreshToken(tx: Tx, connectionId: string): Promise<string> {
  const token = `cbr_${randomBytes(32).toString("base64url")}`;
  await tx.insert(oauthRefreshTokens).values({
    tokenHash: hashToken(token),
    connectionId,
    expiresAt: sql`now() + make_interval(secs => ${REFRESH_TOKEN_SECONDS})`,
  });
  return token;
}

/** Ends a connection: its agent token is revoked (so its access token stops at once) and no refresh token works. */
export async function revokeConnection(tx: Tx, connectionId: string, reason: string) {
  const [connection] = await tx
    .update(oauthConnections)
    .set({ revokedAt: sql`now()`, revokedReason: reason })
    .where(and(eq(oauthConnections.id, connectionId), isNull(oauthConnections.revokedAt)))
    .returning();
  if (!connection) return;
  const [token] = await tx
    .update(agentTokens)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(agentTokens.id, connection.tokenId), isNull(agentTokens.revokedAt)))
    .returning({ id: agentTokens.id, name: agentTokens.name, role: agentTokens.role });
  const [person] = await tx.select({ id: actors.id, name: actors.name, kind: actors.kind }).from(actors).where(eq(actors.id, connection.personId));
  if (token && person) {
    await recordAudit(tx, person, { action: "token_revoked", subject: { kind: "token", id: token.id, name: token.name }, detail: { role: token.role, via: "oauth", reason } });
  }
}

/**
 * A person's standing changed (lib/auth/people.ts): disabled, every connection of theirs
 * ends now; no longer a supervisor, their connections' supervisor tokens become agent
 * tokens now (the scope is cut at the next refresh as well).
 */
export async function personChanged(tx: Tx, personId: string, change: { disabled?: boolean; role?: string }) {
  const connections = await tx
    .select({ id: oauthConnections.id, tokenId: oauthConnections.tokenId })
    .from(oauthConnections)
    .where(and(eq(oauthConnections.personId, personId), isNull(oauthConnections.revokedAt)));
  for (const connection of connections) {
    if (change.disabled) await revokeConnection(tx, connection.id, "person disabled");
    else if (change.role !== undefined && change.role !== "supervisor") {
      await tx.update(agentTokens).set({ role: "agent" }).where(and(eq(agentTokens.id, connection.tokenId), eq(agentTokens.role, "supervisor")));
    }
  }
}

/** grant_type=authorization_code (RFC 6749 §4.1.3 with PKCE): the code, once, for a new connection. */
export async function exchangeCode(
  db: Db,
  input: { clientId: string; code: string; redirectUri: string | null; codeVerifier: string | null; resource: string | null },
): Promise<Outcome> {
  if (!input.codeVerifier) return refused(fail("invalid_request", "code_verifier is required (PKCE S256)"));
  if (!VERIFIER.test(input.codeVerifier)) return refused(fail("invalid_request", "code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_', '~'"));
  if (!input.redirectUri) return refused(fail("invalid_request", "redirect_uri is required"));
  const client = await findClient(db, input.clientId);
  if (!client) return refused(fail("invalid_client", "Unknown client_id"));
  return db.transaction(async (tx) => {
    const [found] = await tx
      .select({ code: oauthCodes, expired: sql<boolean>`${oauthCodes.expiresAt} <= now()` })
      .from(oauthCodes)
      .where(eq(oauthCodes.codeHash, hashToken(input.code)))
      .for("update");
    const code = found?.code;
    if (!code || code.clientId !== client.id) return refused(fail("invalid_grant", "The code is not valid for this client"));
    if (code.usedAt) {
      if (code.connectionId) await revokeConnection(tx, code.connectionId, "authorization code replayed");
      return refused(fail("invalid_grant", "The code was already used; the connection it made is revoked"));
    }
    if (found.expired) return refused(fail("invalid_grant", "The code has expired"));
    if (code.redirectUri !== input.redirectUri) return refused(fail("invalid_grant", "redirect_uri does not match the one the code was issued for"));
    if (!pkceMatches(input.codeVerifier!, code.codeChallenge)) return refused(fail("invalid_grant", "code_verifier does not match the code_challenge"));
    if (input.resource !== null && code.resource !== null && input.resource !== code.resource) {
      return refused(fail("invalid_target", "resource differs from the one authorized"));
    }
    const person = await livePerson(tx, code.personId);
    if (!person) return refused(fail("invalid_grant", "The person who approved can no longer sign in"));
    const scopes = allowedFor(parseScope(code.scope) ?? [], person.role);
    if (scopes.length === 0) return refused(fail("invalid_scope", "None of the approved scopes is still allowed"));
    const role = roleOf(scopes);
    const name = `mcp-${slug(client.name)}-${randomBytes(3).toString("hex")}`;
    const created = await insertToken(tx, { name, role });
    if (!created) return refused(fail("invalid_grant", "Try again"));
    await tx.update(agentTokens).set({ expiresAt: sql`now() + make_interval(secs => ${ACCESS_TOKEN_SECONDS})` }).where(eq(agentTokens.id, created.id));
    const [connection] = await tx
      .insert(oauthConnections)
      .values({ clientId: client.id, personId: person.id, tokenId: created.id, scope: scopes.join(" ") })
      .returning({ id: oauthConnections.id });
    await tx.update(oauthCodes).set({ usedAt: sql`now()`, connectionId: connection!.id }).where(eq(oauthCodes.codeHash, code.codeHash));
    await recordAudit(tx, person, {
      action: "token_created",
      subject: { kind: "token", id: created.id, name },
      detail: { role, prefix: created.prefix, via: "oauth", client: client.name, clientId: client.id, scope: scopes.join(" ") },
    });
    const refresh = await newRefreshToken(tx, connection!.id);
    return { ok: true as const, tokens: { access_token: created.token, token_type: "Bearer" as const, expires_in: ACCESS_TOKEN_SECONDS, refresh_token: refresh, scope: scopes.join(" ") } };
  });
}

/** grant_type=refresh_token (RFC 6749 §6, OAuth 2.1 §4.3.1 rotation): a new access token and refresh token; a spent one revokes the family. */
export async function refreshGrant(db: Db, input: { clientId: string; refreshToken: string; scope: string | null }): Promise<Outcome> {
  const client = await findClient(db, input.clientId);
  if (!client) return refused(fail("invalid_client", "Unknown client_id"));
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ refresh: oauthRefreshTokens, connection: oauthConnections, live: sql<boolean>`${oauthRefreshTokens.expiresAt} > now()` })
      .from(oauthRefreshTokens)
      .innerJoin(oauthConnections, eq(oauthConnections.id, oauthRefreshTokens.connectionId))
      .where(eq(oauthRefreshTokens.tokenHash, hashToken(input.refreshToken)))
      .for("update");
    if (!row || row.connection.clientId !== client.id) return refused(fail("invalid_grant", "The refresh token is not valid for this client"));
    if (row.refresh.usedAt) {
      await revokeConnection(tx, row.connection.id, "refresh token replayed");
      return refused(fail("invalid_grant", "The refresh token was already used; the connection is revoked"));
    }
    if (row.connection.revokedAt) return refused(fail("invalid_grant", "The connection was revoked"));
    if (!row.live) return refused(fail("invalid_grant", "The refresh token has expired"));
    const [token] = await tx.select().from(agentTokens).where(eq(agentTokens.id, row.connection.tokenId)).for("update");
    if (!token || token.revokedAt) return refused(fail("invalid_grant", "The connection was revoked"));
    const person = await livePerson(tx, row.connection.personId);
    if (!person) {
      await revokeConnection(tx, row.connection.id, "person can no longer sign in");
      return refused(fail("invalid_grant", "The person who approved can no longer sign in"));
    }
    const granted = parseScope(row.connection.scope) ?? [];
    const asked = input.scope === null ? granted : parseScope(input.scope);
    if (!asked || asked.some((s) => !granted.includes(s))) return refused(fail("invalid_scope", "A refresh may narrow the scope, never widen it"));
    const scopes = allowedFor(asked, person.role);
    if (scopes.length === 0) return refused(fail("invalid_scope", "None of the scopes is still allowed"));
    await tx.update(oauthRefreshTokens).set({ usedAt: sql`now()` }).where(eq(oauthRefreshTokens.tokenHash, row.refresh.tokenHash));
    const secret = newTokenSecret();
    await tx
      .update(agentTokens)
      .set({ tokenHash: secret.tokenHash, prefix: secret.prefix, role: roleOf(scopes), expiresAt: sql`now() + make_interval(secs => ${ACCESS_TOKEN_SECONDS})` })
      .where(eq(agentTokens.id, token.id));
    const refresh = await newRefreshToken(tx, row.connection.id);
    return { ok: true as const, tokens: { access_token: secret.token, token_type: "Bearer" as const, expires_in: ACCESS_TOKEN_SECONDS, refresh_token: refresh, scope: scopes.join(" ") } };
  });
}
