import { sql } from "drizzle-orm";
import {
  uniqueIndex,
  boolean,
  check,
  date,
  doublePrecision,
  index,
  integer,
  numeric,
  primaryKey,
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
    /** Notification kinds the person turned off (lib/notify/kinds.ts; migration 0037): empty, all on. */
    notificationsOff: text("notifications_off").array().notNull().default(sql`'{}'::text[]`),
    /** Bumped when the password changes or is reset and when the person is disabled: sessions of an older one end (lib/auth/session.ts; migration 0043). */
    sessionGeneration: integer("session_generation").notNull().default(0),
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
    /** Past this the token is refused (null: never). New ones default to 90 days (lib/auth/tokens.ts); an OAuth connection's access token lasts an hour (lib/oauth). */
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    /** Who made it. A person as maker must stay an enabled supervisor, or the token stops working. */
    createdBy: uuid("created_by").references(() => actors.id),
    /** The agent's cap a calendar month (UTC), in a unit of the team's choosing (docs/budgets.md); null: none. */
    monthlyBudgetLimit: numeric("monthly_budget_limit", { mode: "number" }),
    monthlyBudgetUnit: text("monthly_budget_unit"),
  },
  (t) => [
    check("agent_tokens_monthly_budget", sql`(${t.monthlyBudgetLimit} IS NULL) = (${t.monthlyBudgetUnit} IS NULL) AND (${t.monthlyBudgetLimit} IS NULL OR ${t.monthlyBudgetLimit} > 0)`),
    uniqueIndex("agent_tokens_hash_unique").on(t.tokenHash),
    // Only capped tokens are in it: a claim asks it whether its agent is over its month (lib/tasks/budgets/cap.ts).
    index("agent_tokens_capped").on(t.actorId).where(sql`${t.monthlyBudgetLimit} IS NOT NULL`),
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
 * Sign-in backoff, one row per key — an account (the email as typed, lowercased), a trusted
 * device of an account, a client address — with its attempts counted and when the next may
 * come (lib/auth/sign-in-backoff.ts): shared by every server instance and lifted by a
 * supervisor (docs/security.md). Rows quiet past the window are deleted as new ones come.
 */
export const signInBackoff = pgTable(
  "sign_in_backoff",
  {
    /** "account", "device" or "address". */
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    /** Attempts counted (charged before their password is evaluated; a success gives its back). */
    failures: integer("failures").notNull(),
    /** No attempt is evaluated before this. */
    nextAt: timestamp("next_at", { withTimezone: true }).notNull(),
    lastAt: timestamp("last_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] }), index("sign_in_backoff_next").on(t.nextAt)],
);

/**
 * What each actor reported spending a calendar month (UTC), by unit (docs/budgets.md): one row
 * an actor, month and unit, added to by every heartbeat or completion that sends `spend`. The
 * unit is the task's budget unit, or '' for a task without a budget (counted against a cap in
 * any unit). An agent's monthly cap is checked against it when it claims.
 */
export const actorSpend = pgTable(
  "actor_spend",
  {
    actorId: uuid("actor_id").notNull(),
    month: date("month", { mode: "string" }).notNull(),
    unit: text("unit").notNull(),
    spent: numeric("spent", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.actorId, t.month, t.unit] }), check("actor_spend_nonnegative", sql`${t.spent} >= 0`)],
);
