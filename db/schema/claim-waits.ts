import { pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { agentTokens } from "./people";

/**
 * An agent token's open claim wait, for the fleet (migration 0035, docs/fleet.md "Waiting"):
 * written when a wait opens and when it ends, on whichever instance holds it, so every
 * instance's /agents tells the same. UNLOGGED (the migration says so by hand).
 */
export const claimWaits = pgTable("claim_waits", {
  tokenId: uuid("token_id")
    .primaryKey()
    .references(() => agentTokens.id, { onDelete: "cascade" }),
  queue: text("queue").notNull(),
  /** When the token began waiting; a wait opened within seconds of the last one's end keeps it. */
  since: timestamp("since", { withTimezone: true }).notNull(),
  /** When the open wait ends at the latest (its `wait`), or when it ended. */
  until: timestamp("until", { withTimezone: true }).notNull(),
});
