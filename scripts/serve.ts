// `npm start` / `npm run dev`: the database (embedded unless DATABASE_URL), migrations,
// a production build when none exists, then Next.js — and a clean stop on Ctrl-C/SIGTERM.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { migrateDatabase } from "../db/migrate";
import { settlePrepare } from "../db/pooler";
import { connectDatabase, serverPoolOptions } from "../db/client";
import { DATA_DIR, openProjectDatabase, type ProjectDatabase } from "../db/project-database";
import { seedDemo } from "../lib/demo";
import { serverSecret } from "./server-secret";

const mode = process.argv[2] === "dev" ? "dev" : "start";
const port = Number(process.env.PORT ?? 3000);
const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
const say = (line: string) => console.log(`[claimboard] ${line}`);

/**
 * The address Next.js listens on. HOST when set; else, on the embedded demo database (whose
 * demo passwords are printed), loopback only; with DATABASE_URL (a deployment), every
 * interface, as `next start` does by default.
 */
const host = (source: ProjectDatabase["source"]) => process.env.HOST || (source === "env" ? null : "127.0.0.1");
/** How long Next.js gets to finish its responses (event streams end at once) before it is killed. */
const GRACE_MS = Number(process.env.STOP_GRACE_SECONDS ?? 10) * 1000;

let database: ProjectDatabase | null = null;
let child: ChildProcess | null = null;
let stopping: Promise<never> | null = null;
let forced = false;

const running = (process: ChildProcess | null): process is ChildProcess =>
  process !== null && process.exitCode === null && process.signalCode === null;

/**
 * A clean stop, in order: Next.js first (SIGTERM: it stops accepting, ends the event
 * streams, finishes responses), then PostgreSQL (a fast shutdown: a checkpoint, nothing to
 * recover). PostgreSQL runs in a process group of its own, so a terminal's Ctrl-C reaches it
 * only through here, after the server that uses it has gone. Called again (Next.js exiting
 * because of it), it is the same stop.
 */
function shutdown(code: number): Promise<never> {
  stopping ??= (async () => {
    if (running(child)) {
      const exited = new Promise((resolve) => child!.once("exit", resolve));
      child.kill("SIGTERM");
      const force = setTimeout(() => {
        say(`Next.js did not stop within ${GRACE_MS / 1000} s: killed`);
        child?.kill("SIGKILL");
      }, GRACE_MS);
      await exited;
      clearTimeout(force);
    }
    // Forced meanwhile (Next.js killed by force() exits here too): force() ends the stop,
    // with its own exit code, once its immediate shutdown of PostgreSQL is done.
    if (forced) return new Promise<never>(() => {});
    await database?.release().catch((error: unknown) => say(`stopping PostgreSQL failed: ${String(error)}`));
    if (forced) return new Promise<never>(() => {});
    if (database?.source === "embedded") say("stopped (PostgreSQL shut down cleanly)");
    process.exit(code);
  })();
  return stopping;
}

/** A second signal while stopping: kill Next.js, PostgreSQL without its checkpoint, exit now. */
async function force(signal: NodeJS.Signals): Promise<never> {
  forced = true;
  say(`${signal} again: forcing the stop (Next.js killed, PostgreSQL without a checkpoint)`);
  if (running(child)) child.kill("SIGKILL");
  const released = database?.release("immediate").catch(() => {});
  await Promise.race([released, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  process.exit(128 + os.constants.signals[signal]);
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    if (stopping) return void force(signal);
    say(`${signal}: stopping Next.js, then PostgreSQL (a second signal forces)`);
    void shutdown(0);
  });
}

function run(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [nextBin, ...args], { env, stdio: "inherit" });
}

/**
 * The embedded default only: demo people and tasks on a first start. The logins are saved
 * now and printed beside "running" (a first start builds first, and a newcomer reads the
 * last lines, not a list ~120 lines up); null when the demo was seeded before.
 */
async function seedDemoOnce(url: string): Promise<string[] | null> {
  const { db, client } = connectDatabase(url, { max: 1 });
  try {
    const logins = await seedDemo(db);
    if (!logins) return null;
    const lines = logins.map((l) => `  ${l.role.padEnd(10)} ${l.email.padEnd(20)} password ${l.password}`);
    await fs.writeFile(path.join(DATA_DIR, "demo-logins.txt"), lines.join("\n") + "\n", { mode: 0o600 });
    say(`demo accounts created: their logins are printed when the server is running (and saved in ${demoLoginsPath()})`);
    return lines;
  } finally {
    await client.end();
  }
}

const demoLoginsPath = () => `${path.relative(process.cwd(), DATA_DIR)}/demo-logins.txt`;

async function waitUntilHealthy(url: string): Promise<void> {
  for (let i = 0; i < 600 && !stopping; i++) {
    const ok = await fetch(`${url}/api/v1/health`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function main() {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`PORT must be 1..65535, not ${process.env.PORT}`);
  serverPoolOptions(); // a DB_POOL_SIZE that is not a number stops here, before anything starts
  // npm scripts run on the project's own Node 24 (node_modules/.bin/node); only a platform it ships none for falls back to the machine's.
  const major = Number(process.versions.node.split(".")[0]);
  say(`Node ${process.version}${major < 24 ? " (older than the project's Node 24: see docs/runtime.md)" : ""}`);
  database = await openProjectDatabase(say, { detached: true });
  if (database.source !== "embedded") say(`database: ${database.source === "env" ? "DATABASE_URL" : "embedded PostgreSQL already running in .data"}`);
  if (database.source === "env") {
    const probe = await settlePrepare(database.url);
    say(`prepared statements ${probe.prepare ? "on" : "off"}: ${probe.reason}`);
    if (process.env.LISTEN_DATABASE_URL) say("LISTEN goes to LISTEN_DATABASE_URL");
    else if (!probe.prepare) say("LISTEN_DATABASE_URL is not set: LISTEN goes through DATABASE_URL, which a transaction-mode pooler does not support");
  }
  await migrateDatabase(database.url);
  say("migrations applied");
  const logins = database.source !== "env" ? await seedDemoOnce(database.url) : null;

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: database.url,
    PORT: String(port),
    NODE_ENV: mode === "dev" ? ("development" as const) : ("production" as const),
    NEXTAUTH_SECRET: await serverSecret(),
    NEXTAUTH_URL: process.env.NEXTAUTH_URL ?? `http://localhost:${port}`,
    NEXT_TELEMETRY_DISABLED: "1",
  };
  if (mode === "start" && !existsSync(".next/BUILD_ID")) {
    say("no production build yet: running next build");
    const build = run(["build"], env);
    child = build;
    const code: number = await new Promise((resolve) => build.once("exit", (c) => resolve(c ?? 1)));
    if (code !== 0) throw new Error(`next build failed (exit ${code})`);
  }

  if (stopping) return;
  const address = host(database.source);
  child = run([mode, "--port", String(port), ...(address ? ["--hostname", address] : [])], env);
  child.once("exit", (code) => void shutdown(code ?? 0));
  const wildcard = !address || address === "0.0.0.0" || address === "::";
  const local = wildcard || address === "127.0.0.1" || address === "localhost";
  await waitUntilHealthy(`http://${local ? "127.0.0.1" : address.includes(":") ? `[${address}]` : address}:${port}`);
  if (stopping) return;
  if (logins) {
    say(`sign in with a demo account (printed this once; also in ${demoLoginsPath()}):`);
    for (const line of logins) console.log(line);
  }
  say(`Claimboard is running at http://${local ? "localhost" : address}:${port}${wildcard ? " (every interface)" : ""}`);
}

main().catch((error: unknown) => {
  console.error(`[claimboard] ${error instanceof Error ? error.message : String(error)}`);
  void shutdown(1);
});
