import { cp, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
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

/**
 * A copy of the migrations folder as it stood at migration `last` (the journal cut there), for
 * a test or bench that needs a database as an older release left it. The caller removes it.
 */
export async function migrationsFolderUpTo(last: number): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), "claimboard-migrations-"));
  await cp(migrationsFolder, folder, { recursive: true });
  const journalPath = path.join(folder, "meta", "_journal.json");
  const journal = JSON.parse(await readFile(journalPath, "utf8")) as { entries: { idx: number }[] };
  journal.entries = journal.entries.filter((e) => e.idx <= last);
  await writeFile(journalPath, JSON.stringify(journal));
  return folder;
}
