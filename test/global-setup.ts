import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres, type EmbeddedServer } from "../db/embedded";
import { migrateDatabase } from "../db/migrate";
import { withDatabase } from "./db-url";

declare module "vitest" {
  export interface ProvidedContext {
    adminUrl: string;
    templateDatabase: string;
    databasePrefix: string;
  }
}

/**
 * One PostgreSQL for the whole run: TEST_DATABASE_URL's server when set, else an embedded
 * one in a temporary folder. Migrations run once into a template database; every test
 * file then gets its own copy of it (see test/db.ts).
 */
export default async function setup(project: TestProject) {
  let embedded: EmbeddedServer | null = null;
  let dataDir: string | null = null;
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "claimboard-test-"));
    await fs.chmod(dataDir, 0o755); // under root, the cluster runs as `postgres`, which must reach it
    embedded = await startEmbeddedPostgres({ dataDir: path.join(dataDir, "pg"), unsafeFast: true });
    adminUrl = embedded.adminUrl;
  }

  const prefix = `cbt_${process.pid}_${Date.now().toString(36)}`;
  const template = `${prefix}_template`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const [row] = await admin<{ server_version: string }[]>`SHOW server_version`;
  const version = row?.server_version;
  console.log(`[test] PostgreSQL ${version} (${embedded ? "embedded" : "TEST_DATABASE_URL"})`);
  await admin.unsafe(`CREATE DATABASE "${template}"`);
  await migrateDatabase(withDatabase(adminUrl, template));

  project.provide("adminUrl", adminUrl);
  project.provide("templateDatabase", template);
  project.provide("databasePrefix", prefix);

  return async () => {
    const leftovers = await admin<{ datname: string }[]>`
      SELECT datname FROM pg_database WHERE datname LIKE ${prefix + "%"}`;
    for (const { datname } of leftovers) await admin.unsafe(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await admin.end();
    await embedded?.stop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  };
}
