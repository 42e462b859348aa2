import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { postgresBinaries } from "../db/embedded-binaries";

/** The pg_ctl beside the postgres that db/embedded.ts runs the test clusters with. */
const pgCtlPath = () => postgresBinaries().pgCtl;

/**
 * Runs the embedded cluster's pg_ctl on `dataDir` — as the `postgres` system user under root,
 * as db/embedded.ts runs the cluster — and throws unless it succeeds. `start` passes the
 * options the server last ran with (postmaster.opts: port, no Unix socket, fsync off), which
 * only `restart` reads by itself; the server log goes to a file in the data folder, so
 * pg_ctl's pipes close once the server is up.
 */
export function pgCtl(dataDir: string, args: string[], { wait = true } = {}): string {
  const full = [...args, "-D", dataDir, ...(wait ? ["-w", "-t", "30"] : ["-W"])];
  if (args[0] === "start" || args[0] === "restart") full.push("-l", path.join(dataDir, "pg_ctl.log"));
  if (args[0] === "start") full.push("-o", lastOptions(dataDir));
  const [command, argv] = os.userInfo().uid === 0 ? ["runuser", ["-u", "postgres", "--", pgCtlPath(), ...full]] : [pgCtlPath(), full];
  const result = spawnSync(command, argv, { cwd: "/", encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 40_000 });
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`.trim();
  if (result.status !== 0) throw new Error(`pg_ctl ${args.join(" ")} failed (${result.status ?? result.signal}): ${output}`);
  return output;
}

/** The server's command-line options from postmaster.opts, but -D, quoted for pg_ctl's shell. */
function lastOptions(dataDir: string): string {
  const quoted = [...readFileSync(path.join(dataDir, "postmaster.opts"), "utf8").matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!);
  const options: string[] = [];
  for (let i = 0; i < quoted.length; i++) {
    if (quoted[i] === "-D") i++;
    else options.push(`'${quoted[i]!.replace(/'/g, `'\\''`)}'`);
  }
  return options.join(" ");
}
