import path from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { connectDatabase } from "./client";

export const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

/**
 * Applies pending migrations; safe to call at every start (drizzle records what ran). Then
 * makes the event log's partitions through next month (migration 0012): with no cron and no
 * worker, every start is when next month's partition is made; a month that still finds none
 * lands in the DEFAULT partition, so no insert fails for want of one.
 */
export async function migrateDatabase(url: string): Promise<void> {
  const { db, client } = connectDatabase(url, { max: 1, applicationName: "claimboard-migrate" });
  try {
    await migrate(db, { migrationsFolder });
    await db.execute(sql`SELECT task_events_ensure_partitions()`);
  } finally {
    await client.end();
  }
}
