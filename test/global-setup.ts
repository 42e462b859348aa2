import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { migrateDatabase } from "../db/migrate";
import { testCluster } from "./cluster";
import { withDatabase } from "./db-url";

declare module "vitest" {
  export interface ProvidedContext {
    adminUrl: string;
    templateDatabase: string;
    databasePrefix: string;
    /** The embedded cluster's data folder, which the fault suite's restart test may stop; "" under TEST_DATABASE_URL. */
    pgDataDir: string;
  }
}

/**
 * One PostgreSQL for the whole run: TEST_DATABASE_URL's server when set, else an embedded
 * one in a temporary folder. Migrations run once into a template database; every test
 * file then gets its own copy of it (see test/db.ts). The fault suite runs on the same setup
 * (vitest.faults.config.ts): a TEST_DATABASE_URL server is shared, so it is never restarted.
 */
export default async function setup(project: TestProject) {
  const cluster = await testCluster("test");
  const { adminUrl } = cluster;

  const prefix = `cbt_${process.pid}_${Date.now().toString(36)}`;
  const template = `${prefix}_template`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const [row] = await admin<{ server_version: string }[]>`SHOW server_version`;
  const version = row?.server_version;
  console.log(`[test] PostgreSQL ${version} (${cluster.pgDataDir ? "embedded" : "TEST_DATABASE_URL"})`);
  await admin.unsafe(`CREATE DATABASE "${template}"`);
  await migrateDatabase(withDatabase(adminUrl, template));

  project.provide("adminUrl", adminUrl);
  project.provide("templateDatabase", template);
  project.provide("databasePrefix", prefix);
  project.provide("pgDataDir", cluster.pgDataDir ?? "");

  return async () => {
    const leftovers = await admin<{ datname: string }[]>`
      SELECT datname FROM pg_database WHERE datname LIKE ${prefix + "%"}`;
    for (const { datname } of leftovers) await admin.unsafe(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await admin.end(); // reconnects on demand if a fault test restarted the server
    await cluster.stop(); // restart-safe
  };
}
