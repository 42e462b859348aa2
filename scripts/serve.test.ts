import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { freePort } from "@/db/embedded";
import { freshDatabase, type TestDatabase } from "@/test/db";

// `npm start` as a newcomer runs it: no DATABASE_URL, so an embedded PostgreSQL in the
// project's data folder; a clean stop on SIGTERM; a second start reuses the data.

interface Started {
  process: ChildProcess;
  output: () => string;
  url: string;
}

async function npmStart(env: NodeJS.ProcessEnv): Promise<Started> {
  const port = await freePort();
  const child = spawn("npm", ["start", "--silent"], {
    env: { ...process.env, ...env, PORT: String(port), NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const url = `http://localhost:${port}`;
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes(`Claimboard is running at ${url}`)) {
        clearInterval(timer);
        resolve();
      }
    }, 200);
    child.once("exit", (code) => {
      clearInterval(timer);
      reject(new Error(`npm start exited ${code}:\n${output}`));
    });
  });
  return { process: child, output: () => output, url };
}

/** SIGTERM to the whole process group, as a terminal's Ctrl-C or a service manager would. */
async function stop(started: Started): Promise<void> {
  const exited = new Promise<void>((resolve) => started.process.once("exit", () => resolve()));
  process.kill(-started.process.pid!, "SIGTERM");
  await exited;
}

/** PostgreSQL removes its pid file as the last step of a clean shutdown; wait for it (bounded). */
async function clusterStopped(dataDir: string): Promise<boolean> {
  const pidFile = path.join(dataDir, "postgres", "postmaster.pid");
  for (let i = 0; i < 300 && existsSync(pidFile); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  return !existsSync(pidFile);
}

describe("npm start", () => {
  let dataDir: string;
  let database: TestDatabase;
  const { DATABASE_URL: _omit, ...envWithoutDatabase } = process.env;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "claimboard-start-"));
    await fs.chmod(dataDir, 0o755);
    database = await freshDatabase();
  });
  afterAll(async () => {
    await database?.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  test("without DATABASE_URL it serves health on an embedded PostgreSQL, stops it on SIGTERM, and reuses the data", async () => {
    const env = { ...envWithoutDatabase, CLAIMBOARD_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) };
    const first = await npmStart(env);
    const health = await fetch(`${first.url}/api/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true, db: "up" });
    expect(first.output()).toContain("embedded PostgreSQL on 127.0.0.1");
    // A first start on an empty embedded database prints demo logins (and keeps them in the data folder).
    expect(first.output()).toMatch(/demo accounts created/);
    expect(first.output()).toMatch(/supervisor\s+sara@example\.com\s+password \S+/);
    expect(existsSync(path.join(dataDir, "demo-logins.txt"))).toBe(true);
    expect(existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(true);

    await stop(first);
    expect(await clusterStopped(dataDir)).toBe(true);

    const pgVersionBefore = await fs.stat(path.join(dataDir, "postgres", "PG_VERSION"));
    const second = await npmStart(env);
    expect((await fetch(`${second.url}/api/v1/health`)).status).toBe(200);
    expect(second.output()).not.toMatch(/demo accounts created/); // same data, no second seeding
    const pgVersionAfter = await fs.stat(path.join(dataDir, "postgres", "PG_VERSION"));
    expect(pgVersionAfter.birthtimeMs).toBe(pgVersionBefore.birthtimeMs); // same cluster, not a new initdb
    await stop(second);
    expect(await clusterStopped(dataDir)).toBe(true);
  }, 400_000);

  test("with DATABASE_URL it uses that server and starts none", async () => {
    const otherDir = path.join(dataDir, "unused");
    const started = await npmStart({ ...envWithoutDatabase, DATABASE_URL: database.url, CLAIMBOARD_DATA_DIR: otherDir });
    expect(await (await fetch(`${started.url}/api/v1/health`)).json()).toEqual({ ok: true, db: "up" });
    const [migrated] = await database.client`SELECT count(*)::int AS n FROM actors WHERE kind = 'system'`;
    expect(migrated?.n).toBe(1);
    expect(existsSync(path.join(otherDir, "postgres"))).toBe(false); // no cluster (only the session secret lives there)
    expect(started.output()).not.toMatch(/demo accounts created/); // never seeds a DATABASE_URL database
    await stop(started);
  }, 400_000);
});
