import path from "node:path";
import { fileURLToPath } from "node:url";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { connectDatabase } from "./client";

export const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

/** Applies pending migrations; safe to call at every start (drizzle records what ran). */
export async function migrateDatabase(url: string): Promise<void> {
  const { db, client } = connectDatabase(url, { max: 1, applicationName: "claimboard-migrate" });
  try {
    await migrate(db, { migrationsFolder });
  } finally {
    await client.end();
  }
}
