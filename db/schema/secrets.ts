import { sql } from "drizzle-orm";
import { pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Secrets the server keeps in its database, by name (docs/fences.md): `fence` is the HMAC key
 * of every fence. Made by PostgreSQL itself on first use — 244 bits from two
 * gen_random_uuid() (pg_strong_random) — so every instance of one database signs and verifies
 * with the same key and there is nothing to configure.
 */
export const serverSecrets = pgTable("server_secrets", {
  name: text("name").primaryKey(),
  secret: text("secret")
    .notNull()
    .default(sql`replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', '')`),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});
