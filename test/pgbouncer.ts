import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { freePort } from "@/db/embedded";
import { clusterUser } from "@/db/embedded-binaries";

export interface Pooler {
  /** `url` with its host and port replaced by the pooler's. */
  via(url: string): string;
  port: number;
  output(): string;
  stop(): Promise<void>;
}

/** Debian's PgBouncer, when installed (.ci/run installs it). */
export const PGBOUNCER = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].find((file) => spawnSync("test", ["-x", file]).status === 0) ?? null;

/**
 * A PgBouncer in transaction mode (the mode managed poolers offer) in front of the server
 * of `url`, on a free loopback port: one server connection per transaction, so named
 * prepared statements and session state do not survive between transactions (1.18 has
 * no protocol-level prepared statements). PgBouncer refuses to run as root: under root it
 * runs as the postgres user, from a folder that user can read.
 */
export async function startPgBouncer(url: string, { poolSize = 20 } = {}): Promise<Pooler> {
  if (!PGBOUNCER) throw new Error("pgbouncer is not installed (apt-get install pgbouncer)");
  const server = new URL(url);
  const port = await freePort();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "claimboard-pgbouncer-"));
  await fs.chmod(dir, 0o755);
  const user = decodeURIComponent(server.username || "postgres");
  const password = decodeURIComponent(server.password);
  await fs.writeFile(path.join(dir, "userlist.txt"), `"${user}" "${password}"\n`, { mode: 0o644 });
  const ini = [
    "[databases]",
    `* = host=${server.hostname} port=${server.port || 5432}`,
    "[pgbouncer]",
    `listen_addr = 127.0.0.1`,
    `listen_port = ${port}`,
    `unix_socket_dir =`,
    `auth_type = ${password ? "scram-sha-256" : "trust"}`,
    `auth_file = ${path.join(dir, "userlist.txt")}`,
    "pool_mode = transaction",
    `admin_users = ${user}`,
    `default_pool_size = ${poolSize}`,
    "max_client_conn = 1000",
    // Tests create databases as they go: a pool per database, made on first use.
    "server_reset_query =",
    "ignore_startup_parameters = extra_float_digits",
    `logfile = ${path.join(dir, "pgbouncer.log")}`,
    `pidfile = ${path.join(dir, "pgbouncer.pid")}`,
    "",
  ].join("\n");
  await fs.writeFile(path.join(dir, "pgbouncer.ini"), ini, { mode: 0o644 });
  const runAs = clusterUser();
  if (runAs) await fs.chown(dir, runAs.uid, runAs.gid); // its log and pid file
  const child: ChildProcess = spawn(PGBOUNCER, [path.join(dir, "pgbouncer.ini")], {
    ...(runAs ?? {}),
    cwd: "/",
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited ${child.exitCode}: ${output}`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.end();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (up) break;
    if (i > 100) throw new Error(`pgbouncer did not listen on ${port}: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    via(target: string) {
      const parsed = new URL(target);
      parsed.hostname = "127.0.0.1";
      parsed.port = String(port);
      return parsed.toString();
    },
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill("SIGINT");
      await exited;
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
