import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { migrateDatabase } from "../../db/migrate";
import { testCluster } from "../cluster";
import { withDatabase } from "../db-url";

declare module "vitest" {
  export interface ProvidedContext {
    /** The data folder of the suite's own embedded cluster, which fault 3 may stop; "" under TEST_DATABASE_URL. */
    pgDataDir: string;
  }
}

/**
 * test/global-setup.ts's approach (one cluster, a migrated template, a database per file)
 * for the fault suite, which also needs to know where its cluster lives: fault 3 stops and
 * starts it with pg_ctl. A TEST_DATABASE_URL server is shared, so it is never restarted.
 */
export default async function setup(project: TestProject) {
  const cluster = await testCluster("faults");
  const { adminUrl } = cluster;

  const prefix = `cbf_${process.pid}_${Date.now().toString(36)}`;
  const template = `${prefix}_template`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const [row] = await admin<{ server_version: string }[]>`SHOW server_version`;
  console.log(`[faults] PostgreSQL ${row?.server_version} (${cluster.pgDataDir ? "embedded, restartable" : "TEST_DATABASE_URL, never restarted"})`);
  await admin.unsafe(`CREATE DATABASE "${template}"`);
  await migrateDatabase(withDatabase(adminUrl, template));

  project.provide("adminUrl", adminUrl);
  project.provide("templateDatabase", template);
  project.provide("databasePrefix", prefix);
  project.provide("pgDataDir", cluster.pgDataDir ?? "");

  return async () => {
    // A fault test may have left the admin connection cut (a restart): reconnects on demand.
    const leftovers = await admin<{ datname: string }[]>`
      SELECT datname FROM pg_database WHERE datname LIKE ${prefix + "%"}`;
    for (const { datname } of leftovers) await admin.unsafe(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await admin.end();
    await cluster.stop(); // restart-safe: fault 3 may have restarted it with pg_ctl
  };
}
