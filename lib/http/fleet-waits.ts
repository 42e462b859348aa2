import "server-only";
import { sql } from "drizzle-orm";
import { getDatabase } from "@/db";
import { FLEET_CHANNEL } from "@/lib/realtime/hub";

/** A wait opened within this long of the token's last one ending continues it: `since` stays. */
const CONTINUES_WITHIN = "5 seconds";

/**
 * Stamps the token's open claim wait for the fleet (claim_waits, migration 0035): one write
 * when the wait opens, and one when it ends early (the returned call; a wait that ran to its
 * end leaves `until` at that end, and its caller skips the call) — never per wake-up. A person's
 * session is not on the fleet and writes nothing. With several waits of one token open, the
 * newest one's row is shown; its end clears the row only if no later wait replaced it.
 */
export async function markWaiting(caller: string, queue: string, until: number): Promise<() => Promise<void>> {
  if (caller.startsWith("session:")) return async () => {};
  const { db } = getDatabase();
  const ends = new Date(until).toISOString();
  // A token that did not show as waiting now does: news to /agents that no event carries, so
  // a NOTIFY in the same statement (FLEET_CHANNEL). `shown` reads the row as it was before.
  await db.execute(sql`
    WITH shown AS (SELECT until > now() AS waiting FROM claim_waits WHERE token_id = ${caller}::uuid),
    stamped AS (
      INSERT INTO claim_waits (token_id, queue, since, until) VALUES (${caller}::uuid, ${queue}, now(), ${ends}::timestamptz)
      ON CONFLICT (token_id) DO UPDATE SET queue = excluded.queue, until = excluded.until,
        since = CASE WHEN claim_waits.until > now() - interval '${sql.raw(CONTINUES_WITHIN)}' THEN claim_waits.since ELSE now() END
      RETURNING 1)
    SELECT CASE WHEN coalesce((SELECT waiting FROM shown), false) THEN NULL ELSE pg_notify(${FLEET_CHANNEL}, '') END FROM stamped`);
  return async () => {
    await getDatabase().db.execute(sql`
      UPDATE claim_waits SET until = LEAST(until, now()) WHERE token_id = ${caller}::uuid AND until = ${ends}::timestamptz`);
  };
}
