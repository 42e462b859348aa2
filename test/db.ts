import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { inject } from "vitest";
import { connectDatabase, type Database } from "@/db/client";
import { migrationsFolderUpTo } from "@/db/migrate";
import { withDatabase } from "./db-url";

export interface TestDatabase extends Database {
  url: string;
  /** Another pool on the same database, e.g. one independent connection per simulated client. */
  connect(options?: { max?: number }): Database;
  close(): Promise<void>;
}

/**
 * A fresh, migrated database of this test file's own (a copy of the run's template); with
 * `{ migrated: false }` an empty one, for a test that runs migrations itself (db/hot-path/transactions.test.ts);
 * with `{ migratedUpTo: n }` one migrated through migration n only, for a test of a later
 * migration on a database with history (it then writes the history and runs migrateDatabase).
 */
export async function freshDatabase(options: { migrated?: boolean; migratedUpTo?: number } = {}): Promise<TestDatabase> {
  if (options.migratedUpTo !== undefined) {
    const database = await freshDatabase({ migrated: false });
    const folder = await migrationsFolderUpTo(options.migratedUpTo);
    try {
      await migrate(database.db, { migrationsFolder: folder });
    } finally {
      await rm(folder, { recursive: true });
    }
    return database;
  }
  const adminUrl = inject("adminUrl");
  const name = `${inject("databasePrefix")}_${randomBytes(4).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const template = options.migrated === false ? "template0" : inject("templateDatabase");
    await admin.unsafe(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
  const main = connectDatabase(url, { max: 10, applicationName: "claimboard-test" });
  const extra: Database[] = [];
  return {
    ...main,
    url,
    connect(options) {
      const pool = connectDatabase(url, { max: options?.max ?? 1, applicationName: "claimboard-test" });
      extra.push(pool);
      return pool;
    },
    async close() {
      await Promise.all([main, ...extra].map((d) => d.client.end({ timeout: 5 })));
    },
  };
}
