// `npm start` / `npm run dev`: the database (embedded unless DATABASE_URL), migrations,
// a production build when none exists, then Next.js — and a clean stop on Ctrl-C/SIGTERM.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { migrateDatabase } from "../db/migrate";
import { connectDatabase } from "../db/client";
import { DATA_DIR, openProjectDatabase, type ProjectDatabase } from "../db/project-database";
import { seedDemo } from "../lib/demo";

const mode = process.argv[2] === "dev" ? "dev" : "start";
const port = Number(process.env.PORT ?? 3000);
const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
const say = (line: string) => console.log(`[claimboard] ${line}`);

let database: ProjectDatabase | null = null;
let child: ChildProcess | null = null;
let stopping = false;

async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once("exit", resolve));
      child.kill("SIGTERM");
      const force = setTimeout(() => child?.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(force);
    }
    await database?.release().catch(() => {});
  }
  process.exit(code);
}
process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));

function run(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [nextBin, ...args], { env, stdio: "inherit" });
}

/** Sessions need a signing secret: without NEXTAUTH_SECRET, one kept in the data folder. */
async function localSecret(): Promise<string> {
  const file = path.join(DATA_DIR, "auth-secret");
  const existing = await fs.readFile(file, "utf8").catch(() => null);
  if (existing?.trim()) return existing.trim();
  const secret = randomBytes(32).toString("hex");
  await fs.mkdir(DATA_DIR, { recursive: true });
  await fs.writeFile(file, secret, { mode: 0o600 });
  return secret;
}

/** The embedded default only: demo people and tasks on a first start, logins printed once. */
async function seedDemoOnce(url: string): Promise<void> {
  const { db, client } = connectDatabase(url, { max: 1 });
  try {
    const logins = await seedDemo(db);
    if (!logins) return;
    const lines = logins.map((l) => `  ${l.role.padEnd(10)} ${l.email.padEnd(20)} password ${l.password}`);
    await fs.writeFile(path.join(DATA_DIR, "demo-logins.txt"), lines.join("\n") + "\n", { mode: 0o600 });
    say(`demo accounts created (also saved in ${path.relative(process.cwd(), DATA_DIR)}/demo-logins.txt):`);
    for (const line of lines) console.log(line);
  } finally {
    await client.end();
  }
}

async function waitUntilHealthy(url: string): Promise<void> {
  for (let i = 0; i < 600 && !stopping; i++) {
    const ok = await fetch(`${url}/api/v1/health`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function main() {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`PORT must be 1..65535, not ${process.env.PORT}`);
  database = await openProjectDatabase(say);
  if (database.source !== "embedded") say(`database: ${database.source === "env" ? "DATABASE_URL" : "embedded PostgreSQL already running in .data"}`);
  await migrateDatabase(database.url);
  say("migrations applied");
  if (database.source !== "env") await seedDemoOnce(database.url);

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: database.url,
    PORT: String(port),
    NODE_ENV: mode === "dev" ? ("development" as const) : ("production" as const),
    NEXTAUTH_SECRET: process.env.NEXTAUTH_SECRET ?? (await localSecret()),
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

  child = run([mode, "--port", String(port)], env);
  child.once("exit", (code) => void shutdown(code ?? 0));
  const url = `http://localhost:${port}`;
  await waitUntilHealthy(url);
  if (!stopping) say(`Claimboard is running at ${url}`);
}

main().catch((error: unknown) => {
  console.error(`[claimboard] ${error instanceof Error ? error.message : String(error)}`);
  void shutdown(1);
});
