import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import { freePort } from "@/db/embedded";

const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
export const SESSION_SECRET = "claimboard-bench-secret";

export interface BenchServerProcess {
  url: string;
  pid: number;
  /** CPU seconds (user + system) of the server and its child processes so far. */
  cpuSeconds(): number;
  /** Resident memory of the server process (VmRSS), bytes. */
  rssBytes(): number;
  stop(): Promise<void>;
}

const TICKS = 100; // USER_HZ on Linux

function cpuOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / TICKS; // utime, stime
  } catch {
    return 0;
  }
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) out.push(Number(entry), ...childrenOf(Number(entry)));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Busy and total jiffies of the whole machine (/proc/stat): how saturated the 2 cores were. */
export function machineTicks(): { busy: number; total: number } {
  const [cpu] = fs.readFileSync("/proc/stat", "utf8").split("\n");
  const v = cpu!.trim().split(/\s+/).slice(1).map(Number);
  const idle = v[3]! + v[4]!;
  const total = v.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/**
 * `next start` of the worktree's production build (`npm run build` first), like
 * test/server.ts but keeping the pid for /proc. Rate limits are raised: a bench drives many
 * requests from one address on purpose.
 */
export async function startNext(databaseUrl: string): Promise<BenchServerProcess> {
  if (!fs.existsSync(".next/BUILD_ID")) throw new Error("no production build: run `npm run build` first");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // BENCH_SERVER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", to profile the server.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, nextBin, "start", "--port", String(port)], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      DATABASE_URL: databaseUrl,
      NEXTAUTH_SECRET: SESSION_SECRET,
      NEXTAUTH_URL: url,
      RATE_LIMIT_BURST: "1000000",
      RATE_LIMIT_PER_SECOND: "1000000",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output = (output + d).slice(-20_000)));
  child.stderr!.on("data", (d) => (output = (output + d).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`next start exited ${child.exitCode}:\n${output}`);
    if (await fetch(`${url}/api/v1/health`).then((r) => r.ok, () => false)) break;
    if (i > 600) throw new Error(`next start did not become healthy:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const pid = child.pid!;
  return {
    url,
    pid,
    cpuSeconds: () => [pid, ...childrenOf(pid)].reduce((sum, p) => sum + cpuOf(p), 0),
    rssBytes: () => {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
      return m ? Number(m[1]) * 1024 : NaN;
    },
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
