import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import postgres from "postgres";
import { connectDatabase } from "../db/client";
import { migrateDatabase } from "../db/migrate";
import { createUser } from "../lib/auth/users";
import { withDatabase } from "../test/db-url";
import { testCluster } from "../test/cluster";
import { startServer } from "../test/server";
import { PEOPLE } from "./people";

const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");

/**
 * Builds when there is no build (a stale one is the caller's business: `npx next build`),
 * makes a fresh database — on TEST_DATABASE_URL's server, or an embedded PostgreSQL in a
 * temporary folder — with the three people of e2e/people.ts, and starts `next start` on a
 * free port. The tests find both through E2E_BASE_URL and E2E_DATABASE_URL.
 */
export default async function globalSetup() {
  if (!existsSync(".next/BUILD_ID")) {
    const build = spawnSync(process.execPath, [nextBin, "build"], { stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
    if (build.status !== 0) throw new Error("next build failed");
  }

  const cluster = await testCluster("e2e");
  const { adminUrl } = cluster;
  // For e2e/restart.spec.ts, which restarts this cluster with pg_ctl (e2e/pg-ctl.ts).
  if (cluster.pgDataDir) process.env.E2E_PG_DATA_DIR = cluster.pgDataDir;
  const database = `cbe2e_${process.pid}_${Date.now().toString(36)}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE "${database}"`);
  const url = withDatabase(adminUrl, database);
  await migrateDatabase(url);

  const { db, client } = connectDatabase(url, { max: 1 });
  try {
    for (const person of PEOPLE) await createUser(db, person);
  } finally {
    await client.end();
  }

  const server = await startServer(url);
  process.env.E2E_BASE_URL = server.url;
  process.env.E2E_DATABASE_URL = url;

  return async () => {
    await server.stop();
    if (process.env.E2E_SERVER_LOG) await fs.writeFile(process.env.E2E_SERVER_LOG, server.output());
    await admin.unsafe(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.end();
    await cluster.stop();
  };
}
