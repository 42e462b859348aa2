import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { ensureDatabase, freePort, keptPassword, startEmbeddedPostgres, type EmbeddedServer } from "./embedded";
import { canReach, clusterUser, SHARED_DIR } from "./embedded-binaries";

export const DATA_DIR = path.resolve(process.env.CLAIMBOARD_DATA_DIR ?? ".data");
const PRIVATE_CLUSTER_DIR = path.join(DATA_DIR, "postgres");
const DATABASE = "claimboard";
const PREFERRED_PORT = Number(process.env.EMBEDDED_PG_PORT ?? 54329);
/**
 * Under root in a folder the postgres user cannot reach (a clone under /root), the cluster
 * lives in SHARED_DIR instead, under a name derived from the data folder — the same for
 * every command run on this project, so `npm run cli` finds the one `npm start` runs.
 */
const SHARED_CLUSTER_DIR = path.join(
  SHARED_DIR,
  "clusters",
  `${path.basename(path.dirname(DATA_DIR))}-${createHash("sha256").update(DATA_DIR).digest("hex").slice(0, 12)}`,
  "postgres",
);

/** Where this project's cluster lives: the data folder (created first), unless postgres cannot reach it. */
function clusterDir(): string {
  if (existsSync(path.join(PRIVATE_CLUSTER_DIR, "PG_VERSION"))) return PRIVATE_CLUSTER_DIR;
  if (existsSync(path.join(SHARED_CLUSTER_DIR, "PG_VERSION"))) return SHARED_CLUSTER_DIR;
  return canReach(clusterUser(), DATA_DIR) ? PRIVATE_CLUSTER_DIR : SHARED_CLUSTER_DIR;
}

export interface ProjectDatabase {
  url: string;
  /** "env" (DATABASE_URL), "embedded" (started here) or "running" (an embedded one already up). */
  source: "env" | "embedded" | "running";
  /** Stops the embedded server if this process started it ("immediate": no checkpoint, for a forced stop). */
  release(mode?: "fast" | "immediate"): Promise<void>;
}

/**
 * DATABASE_URL when set; otherwise the project's embedded PostgreSQL in .data/ — the one
 * already running there (started by `npm start`, say) or a new one this process owns.
 * `detached`: the server gets a process group of its own (see EmbeddedOptions).
 */
export async function openProjectDatabase(
  log: (line: string) => void = () => {},
  { detached = false } = {},
): Promise<ProjectDatabase> {
  if (process.env.DATABASE_URL) {
    return { url: process.env.DATABASE_URL, source: "env", release: async () => {} };
  }
  await fs.mkdir(DATA_DIR, { recursive: true });
  const dir = clusterDir();
  const runningPort = await runningClusterPort(dir);
  if (runningPort) {
    return { url: urlFor(runningPort, await keptPassword(dir)), source: "running", release: async () => {} };
  }
  if (dir === SHARED_CLUSTER_DIR) {
    log(`the postgres user cannot reach ${DATA_DIR} (a parent folder is private), so the cluster lives in ${path.dirname(dir)}`);
  }
  const port = (await portIsFree(PREFERRED_PORT)) ? PREFERRED_PORT : await freePort();
  const server: EmbeddedServer = await startEmbeddedPostgres({
    dataDir: dir,
    port,
    logFile: path.join(DATA_DIR, "postgres.log"),
    detached,
  });
  await ensureDatabase(server.adminUrl, DATABASE);
  const shown = path.relative(process.cwd(), dir);
  log(`embedded PostgreSQL on 127.0.0.1:${port}, data in ${shown.startsWith("..") ? dir : shown}`);
  return { url: server.urlFor(DATABASE), source: "embedded", release: (mode) => server.stop(mode) };
}

function urlFor(port: number, password: string): string {
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;
}

/** The port of a live, ready cluster on `dir`, from its postmaster.pid. */
async function runningClusterPort(dir: string): Promise<number | null> {
  const pidFile = await fs.readFile(path.join(dir, "postmaster.pid"), "utf8").catch(() => null);
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
