import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { actors } from "./tasks";

/**
 * One-time password reset links a supervisor issues (lib/auth/password-reset.ts): only the
 * SHA-256 of the link's secret is kept; a link is spent once used, superseded by a newer one
 * for the same person, and worthless past expires_at.
 */
export const passwordResets = pgTable(
  "password_resets",
  {
    tokenHash: text("token_hash").primaryKey(),
    actorId: uuid("actor_id").notNull().references(() => actors.id),
    createdBy: uuid("created_by").notNull().references(() => actors.id),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  (t) => [index("password_resets_actor").on(t.actorId)],
);
