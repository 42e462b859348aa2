import fs from "node:fs/promises";
import path from "node:path";
import { ensureDatabase, freePort, startEmbeddedPostgres, type EmbeddedServer } from "./embedded";

export const DATA_DIR = path.resolve(process.env.CLAIMBOARD_DATA_DIR ?? ".data");
const CLUSTER_DIR = path.join(DATA_DIR, "postgres");
const DATABASE = "claimboard";
const PREFERRED_PORT = Number(process.env.EMBEDDED_PG_PORT ?? 54329);

export interface ProjectDatabase {
  url: string;
  /** "env" (DATABASE_URL), "embedded" (started here) or "running" (an embedded one already up). */
  source: "env" | "embedded" | "running";
  /** Stops the embedded server if this process started it. */
  release(): Promise<void>;
}

/**
 * DATABASE_URL when set; otherwise the project's embedded PostgreSQL in .data/ — the one
 * already running there (started by `npm start`, say) or a new one this process owns.
 */
export async function openProjectDatabase(log: (line: string) => void = () => {}): Promise<ProjectDatabase> {
  if (process.env.DATABASE_URL) {
    return { url: process.env.DATABASE_URL, source: "env", release: async () => {} };
  }
  const runningPort = await runningClusterPort();
  if (runningPort) {
    return { url: urlFor(runningPort), source: "running", release: async () => {} };
  }
  await fs.mkdir(DATA_DIR, { recursive: true });
  const logFile = await fs.open(path.join(DATA_DIR, "postgres.log"), "a");
  const port = (await portIsFree(PREFERRED_PORT)) ? PREFERRED_PORT : await freePort();
  let server: EmbeddedServer;
  try {
    server = await startEmbeddedPostgres({
      dataDir: CLUSTER_DIR,
      port,
      log: (line) => void logFile.write(`${line}\n`).catch(() => {}),
    });
  } catch (error) {
    await logFile.close();
    throw error;
  }
  await ensureDatabase(server.adminUrl, DATABASE);
  log(`embedded PostgreSQL on 127.0.0.1:${port}, data in ${path.relative(process.cwd(), CLUSTER_DIR)}`);
  return {
    url: server.urlFor(DATABASE),
    source: "embedded",
    async release() {
      await server.stop();
      await logFile.close();
    },
  };
}

function urlFor(port: number): string {
  return `postgres://postgres:claimboard@127.0.0.1:${port}/${DATABASE}`;
}

/** The port of a live, ready cluster on CLUSTER_DIR, from its postmaster.pid. */
async function runningClusterPort(): Promise<number | null> {
  const pidFile = await fs.readFile(path.join(CLUSTER_DIR, "postmaster.pid"), "utf8").catch(() => null);
  if (!pidFile) return null;
  const lines = pidFile.split("\n");
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port || !lines[7]?.trim().startsWith("ready")) return null;
  try {
    process.kill(pid, 0);
  } catch {
    return null; // a stale file from a crash: PostgreSQL itself cleans it up on start
  }
  return port;
}

async function portIsFree(port: number): Promise<boolean> {
  const net = await import("node:net");
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
