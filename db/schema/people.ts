import { sql } from "drizzle-orm";
import {
  bigint,
  uniqueIndex,
  boolean,
  doublePrecision,
  index,
  pgTable,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import { actors, timestamps } from "./tasks";
import { tokenRole, userRole } from "./enums";

/** People who sign in to the board. Their role is re-read on every mutation. */
export const users = pgTable(
  "users",
  {
    actorId: uuid("actor_id")
      .primaryKey()
      .references(() => actors.id),
    email: text("email").notNull(),
    role: userRole("role").notNull(),
    /** Argon2id, encoded with its parameters. */
    passwordHash: text("password_hash").notNull(),
    disabled: boolean("disabled").notNull().default(false),
    ...timestamps,
  },
  (t) => [uniqueIndex("users_email_unique").on(sql`lower(${t.email})`)],
);

/** Bearer tokens: 256 random bits, shown once, stored only as a SHA-256 hash. One agent actor each. */
export const agentTokens = pgTable(
  "agent_tokens",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    actorId: uuid("actor_id")
      .notNull()
      .references(() => actors.id),
    name: text("name").notNull(),
    /** The first characters of the token, for people to tell tokens apart. */
    prefix: text("prefix").notNull(),
    /** Hex SHA-256 of the whole token; the lookup key. */
    tokenHash: text("token_hash").notNull(),
    role: tokenRole("role").notNull().default("agent"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    /** An OAuth connection's access token expires (db/schema/oauth.ts); null: the token lives until revoked. */
    expiresAt: timestamp("expires_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("agent_tokens_hash_unique").on(t.tokenHash),
    // A name identifies a live token (the CLI revokes by name); revoked ones keep theirs for history.
    uniqueIndex("agent_tokens_live_name_unique").on(t.name).where(sql`${t.revokedAt} IS NULL`),
  ],
);

/**
 * The API's rate limits, one token bucket per key ("token:<id>", "auth:<address>"), shared by
 * every server instance (lib/http/rate-limit.ts). UNLOGGED (the migration says so by hand):
 * no WAL per request, and a crash that empties it only fills every bucket again.
 */
export const rateBuckets = pgTable("rate_buckets", {
  key: text("key").primaryKey(),
  tokens: doublePrecision("tokens").notNull(),
  /** Whether the last take found a whole token (the statement's answer). */
  allowed: boolean("allowed").notNull(),
  at: timestamp("at", { withTimezone: true }).notNull(),
});

/**
 * Failed sign-ins, per account (the email as typed, lowercased) and per client address:
 * the lockout of lib/auth/sign-in-lockout.ts, shared by every server instance and lifted by
 * a supervisor (docs/security.md). Rows older than the window are deleted as new ones come.
 */
export const signInFailures = pgTable(
  "sign_in_failures",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    /** "account" or "address". */
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    failedAt: timestamp("failed_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("sign_in_failures_key").on(t.scope, t.key, t.failedAt)],
);
