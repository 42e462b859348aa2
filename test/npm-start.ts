import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { freePort } from "@/db/embedded";

// `npm start` as an operator runs it, and the checks of what a stop leaves behind.

export interface Started {
  process: ChildProcess;
  output: () => string;
  url: string;
  port: number;
  exited: Promise<number | null>;
}

export async function npmStart(env: NodeJS.ProcessEnv, cwd = process.cwd(), script: "start" | "dev" = "start"): Promise<Started> {
  const port = await freePort();
  const child = spawn("npm", ["run", script, "--silent"], {
    cwd,
    env: { ...env, PORT: String(port), NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // a group of its own, as under a supervisor: only npm's pid is signalled
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = `http://localhost:${port}`;
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes(`Claimboard is running at`)) {
        clearInterval(timer);
        resolve();
      }
    }, 200);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`npm start exited ${code}:\n${output}`));
    });
  });
  return { process: child, output: () => output, url, port, exited };
}

/** Every live descendant of `pid` (from /proc), so a test can check none outlives a stop. */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = (() => {
      try {
        return readFileSync(`/proc/${entry}/stat`, "utf8");
      } catch {
        return null; // exited meanwhile
      }
    })();
    const ppid = stat ? Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) : NaN;
    if (Number.isInteger(ppid)) parents.set(Number(entry), ppid);
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid !== parent) continue;
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** A process's command line, "" once it has gone. */
export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
  } catch {
    return "";
  }
}

export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
};

/** Signals npm's pid only (not its group, as `kill <pid>`, `timeout` and container runtimes do). */
export async function signalNpm(started: Started, signals: NodeJS.Signals[], gapMs = 0): Promise<number | null> {
  for (const [i, signal] of signals.entries()) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    started.process.kill(signal);
  }
  return started.exited;
}

/** PostgreSQL removes its pid file as the last step of a shutdown; wait for it (bounded). */
export async function clusterStopped(clusterDir: string): Promise<boolean> {
  const pidFile = path.join(clusterDir, "postmaster.pid");
  for (let i = 0; i < 300 && existsSync(pidFile); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  return !existsSync(pidFile);
}

/** The local addresses of the TCP sockets listening on `port` (from /proc/net/tcp and tcp6). */
export function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const found: string[] = [];
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(file, "utf8").split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state !== "0A" || !local?.endsWith(`:${hexPort}`)) continue;
      const hex = local.split(":")[0]!;
      found.push(hex.length === 8 ? hex.match(/../g)!.reverse().map((b) => parseInt(b, 16)).join(".") : `[${hex}]`);
    }
  }
  return found;
}

/**
 * A copy of this project inside a mode-700 folder — out of the postgres user's reach, as a
 * clone under /root is. node_modules and the build are hard-linked (instant, no space),
 * so the folder must be on the project's file system: the temp folder if it is, else the
 * project's own parent.
 */
export async function privateCopy(project = process.cwd()): Promise<{ root: string; project: string; remove(): Promise<void> }> {
  const sameDevice = (await fs.stat(os.tmpdir())).dev === (await fs.stat(project)).dev;
  const root = await fs.mkdtemp(path.join(sameDevice ? os.tmpdir() : path.dirname(project), "claimboard-private-"));
  await fs.chmod(root, 0o700);
  const copy = path.join(root, "claimboard");
  await fs.mkdir(copy);
  for (const entry of await fs.readdir(project)) {
    if ([".git", ".data"].includes(entry) || entry.startsWith("claimboard-private-")) continue;
    const from = path.join(project, entry);
    if (entry === "node_modules" || entry === ".next") {
      const link = spawn("cp", ["-al", from, copy], { stdio: "inherit" });
      const code = await new Promise((resolve) => link.once("exit", resolve));
      if (code !== 0) throw new Error(`cp -al ${from} failed`);
    } else {
      await fs.cp(from, path.join(copy, entry), { recursive: true, verbatimSymlinks: true });
    }
  }
  return { root, project: copy, remove: () => fs.rm(root, { recursive: true, force: true }) };
}
