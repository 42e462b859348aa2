import { index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { actors } from "./tasks";
import { agentTokens } from "./people";

// OAuth 2.1 for /api/mcp (docs/mcp.md, "Signing in by OAuth"). A client registers itself
// (RFC 7591); a signed-in person approves it on the consent page, which issues a one-time
// code; the code (with its PKCE verifier) buys a connection: an agent token owned by that
// person, whose secret is the access token (short-lived, replaced at each refresh), and a
// chain of refresh tokens, each good once. Secrets are stored only as SHA-256 hashes.

/** Registered clients (RFC 7591): public clients only (no secret; PKCE S256 is required). */
export const oauthClients = pgTable("oauth_clients", {
  /** The client_id handed out: random, unguessable. */
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** Exact strings; the authorize request's redirect_uri must equal one of them. */
  redirectUris: text("redirect_uris").array().notNull(),
  /** The registration as accepted (RFC 7591 metadata), returned as the registration answers it. */
  metadata: jsonb("metadata").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/** One-time authorization codes, issued on the consent page and spent at the token endpoint. */
export const oauthCodes = pgTable("oauth_codes", {
  codeHash: text("code_hash").primaryKey(),
  clientId: text("client_id").notNull().references(() => oauthClients.id),
  /** The person who approved (their actor). */
  personId: uuid("person_id").notNull().references(() => actors.id),
  redirectUri: text("redirect_uri").notNull(),
  scope: text("scope").notNull(),
  /** PKCE S256: base64url(SHA-256(verifier)). */
  codeChallenge: text("code_challenge").notNull(),
  resource: text("resource"),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  /** Set when spent; a second use revokes the connection the first one made. */
  usedAt: timestamp("used_at", { withTimezone: true }),
  /** The connection the code bought. */
  connectionId: uuid("connection_id"),
});

/** A client's connection for one person: an agent token (its current access token) and a refresh-token family. */
export const oauthConnections = pgTable(
  "oauth_connections",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    clientId: text("client_id").notNull().references(() => oauthClients.id),
    personId: uuid("person_id").notNull().references(() => actors.id),
    /** The agent token the access tokens live in (revoked on /agents like any other: the whole connection ends). */
    tokenId: uuid("token_id").notNull().references(() => agentTokens.id),
    scope: text("scope").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** Why it ended: a replayed refresh token or code, or a revocation. */
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    revokedReason: text("revoked_reason"),
  },
  (t) => [index("oauth_connections_person").on(t.personId), index("oauth_connections_token").on(t.tokenId)],
);

/** Refresh tokens, each good once: using one issues the next; using a spent one revokes the family. */
export const oauthRefreshTokens = pgTable(
  "oauth_refresh_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    connectionId: uuid("connection_id").notNull().references(() => oauthConnections.id),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("oauth_refresh_tokens_connection").on(t.connectionId)],
);
