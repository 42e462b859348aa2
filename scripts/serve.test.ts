import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectDatabase } from "@/db/client";
import { freePort, keptPassword } from "@/db/embedded";
import { createAgentToken } from "@/lib/auth/tokens";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { alive, clusterStopped, commandOf, descendants, listeningAddresses, npmStart, privateCopy, signalNpm, type Started } from "@/test/npm-start";
import { parseEventStream } from "@/test/sse";

// `npm start` as a newcomer and an operator run it: no DATABASE_URL, so an embedded
// PostgreSQL in the project's data folder; a signal to npm's pid alone (what `kill`,
// `timeout`, supervisors and container runtimes send) stops Next.js and PostgreSQL cleanly,
// with an event stream open; a second signal forces; a second start reuses the data.

const { DATABASE_URL: _omit, HOST: _host, CLAIMBOARD_DATA_DIR: _dir, ...baseEnv } = process.env;

/** An event stream held open on the server; `ended` resolves when the server ends it. */
async function openStream(started: Started, databaseUrl: string): Promise<{ ended: Promise<void> }> {
  const { db, client } = connectDatabase(databaseUrl, { max: 1 });
  const { token } = await createAgentToken(db, { name: `stream-${Date.now()}` });
  await client.end();
  const response = await fetch(`${started.url}/api/v1/events`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  const items = parseEventStream(response.body!);
  await items.next(); // the stream's opening comment: it is live
  const ended = (async () => {
    for await (const _item of items);
  })().catch(() => {});
  return { ended };
}

/** Stops by signalling npm's pid; checks that nothing it started is left running. */
async function stopAndCheck(started: Started, signals: NodeJS.Signals[], clusterDir: string | null, gapMs = 0): Promise<number | null> {
  const tree = descendants(started.process.pid!);
  expect(tree.length).toBeGreaterThanOrEqual(clusterDir ? 3 : 2); // serve.ts, next-server (and postgres)
  const code = await signalNpm(started, signals, gapMs);
  if (clusterDir) expect(await clusterStopped(clusterDir)).toBe(true);
  for (let i = 0; i < 50 && tree.some(alive); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(tree.filter(alive)).toEqual([]);
  return code;
}

const shutdowns = async (dataDir: string) => (await fs.readFile(path.join(dataDir, "postgres.log"), "utf8")).match(/database system is shut down/g)?.length ?? 0;

describe("npm start", () => {
  let dataDir: string;
  let database: TestDatabase;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "claimboard-start-"));
    await fs.chmod(dataDir, 0o755);
    database = await freshDatabase();
  });
  afterAll(async () => {
    await database?.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  test("without DATABASE_URL: an embedded PostgreSQL on loopback; SIGTERM to npm alone stops everything cleanly, with a stream open; the data is reused", async () => {
    const pgPort = await freePort();
    const env = { ...baseEnv, CLAIMBOARD_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort) };
    const clusterDir = path.join(dataDir, "postgres");
    const first = await npmStart(env);
    const health = await fetch(`${first.url}/api/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true, db: "up" });
    expect(first.output()).toContain("embedded PostgreSQL on 127.0.0.1");
    // A first start on an empty embedded database prints demo logins (and keeps them in the data folder)...
    expect(first.output()).toMatch(/demo accounts created/);
    expect(first.output()).toMatch(/supervisor\s+sara@example\.com\s+password \S+/);
    // ...right above "running", the line a newcomer reads (the build's output comes before).
    const lines = first.output().split("\n");
    const runningAt = lines.findIndex((line) => line.includes("Claimboard is running at"));
    const loginsAt = lines.findIndex((line) => line.includes("sign in with a demo account"));
    expect(loginsAt, first.output()).toBeGreaterThan(-1);
    expect(lines.slice(loginsAt + 1, runningAt).every((line) => /^\s+\S+\s+\S+@example\.com\s+password \S+$/.test(line)), first.output()).toBe(true);
    expect(lines.slice(loginsAt + 1, runningAt).join("\n")).toMatch(/supervisor\s+sara@example\.com/);
    expect(existsSync(path.join(dataDir, "demo-logins.txt"))).toBe(true);
    // ...so it listens on loopback only.
    expect(listeningAddresses(first.port)).toEqual(["127.0.0.1"]);
    expect(existsSync(path.join(clusterDir, "postmaster.pid"))).toBe(true);

    const stream = await openStream(first, `postgres://postgres:${await keptPassword(clusterDir)}@127.0.0.1:${pgPort}/claimboard`);
    expect(await stopAndCheck(first, ["SIGTERM"], clusterDir)).toBe(0);
    await stream.ended; // ended by the server, not left hanging
    expect(first.output()).toContain("stopped (PostgreSQL shut down cleanly)");
    expect(first.output()).not.toContain("did not stop"); // Next.js stopped by itself, not killed
    expect(await shutdowns(dataDir)).toBe(1); // the shutdown checkpoint was written

    const pgVersionBefore = await fs.stat(path.join(clusterDir, "PG_VERSION"));
    const second = await npmStart({ ...env, HOST: "0.0.0.0" });
    expect((await fetch(`${second.url}/api/v1/health`)).status).toBe(200);
    expect(second.output()).not.toMatch(/demo accounts created/); // same data, no second seeding
    expect(listeningAddresses(second.port)).toEqual(["0.0.0.0"]); // HOST says otherwise
    const pgVersionAfter = await fs.stat(path.join(clusterDir, "PG_VERSION"));
    expect(pgVersionAfter.birthtimeMs).toBe(pgVersionBefore.birthtimeMs); // same cluster, not a new initdb
    expect(await stopAndCheck(second, ["SIGINT"], clusterDir)).toBe(0);
    expect(await shutdowns(dataDir)).toBe(2);
  }, 400_000);

  test("a second signal forces the stop of a server that does not stop", async () => {
    const pgPort = await freePort();
    const env = { ...baseEnv, CLAIMBOARD_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort) };
    const started = await npmStart(env);
    // A hung Next.js: stopped, it cannot act on the first SIGTERM.
    const next = descendants(started.process.pid!).find((pid) => /next-server/.test(commandOf(pid)));
    expect(next).toBeDefined();
    process.kill(next!, "SIGSTOP");
    // Apart, or the two would reach serve.ts as one pending signal.
    const code = await stopAndCheck(started, ["SIGTERM", "SIGTERM"], path.join(dataDir, "postgres"), 1_000);
    expect(code).not.toBe(0);
    expect(started.output()).toContain("SIGTERM again: forcing the stop");
    expect(started.output()).not.toContain("did not stop within"); // forced, not the grace period's end
  }, 400_000);

  test("with DATABASE_URL it uses that server, starts none, and listens on every interface", async () => {
    const otherDir = path.join(dataDir, "unused");
    const started = await npmStart({ ...baseEnv, DATABASE_URL: database.url, CLAIMBOARD_DATA_DIR: otherDir });
    expect(await (await fetch(`${started.url}/api/v1/health`)).json()).toEqual({ ok: true, db: "up" });
    const [migrated] = await database.client`SELECT count(*)::int AS n FROM actors WHERE kind = 'system'`;
    expect(migrated?.n).toBe(1);
    expect(existsSync(path.join(otherDir, "postgres"))).toBe(false); // no cluster (only the session secret lives there)
    expect(started.output()).not.toMatch(/demo accounts created/); // never seeds a DATABASE_URL database
    expect(listeningAddresses(started.port).every((a) => a === "0.0.0.0" || a.startsWith("[0000"))).toBe(true);
    const stream = await openStream(started, database.url);
    expect(await stopAndCheck(started, ["SIGTERM"], null)).toBe(0);
    await stream.ended;
  }, 400_000);

  test("npm run dev stops the same way on SIGTERM to npm alone", async () => {
    const env = { ...baseEnv, CLAIMBOARD_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) };
    const started = await npmStart(env, process.cwd(), "dev");
    expect((await fetch(`${started.url}/api/v1/health`)).status).toBe(200);
    const before = await shutdowns(dataDir);
    expect(await stopAndCheck(started, ["SIGTERM"], path.join(dataDir, "postgres"))).toBe(0);
    expect(await shutdowns(dataDir)).toBe(before + 1);
  }, 400_000);

  // Only root runs PostgreSQL as another user, so only root can be out of its reach.
  test.skipIf(os.userInfo().uid !== 0)("as root in a folder the postgres user cannot reach, it starts (cluster and binaries moved) and stops", async () => {
    const copy = await privateCopy();
    const shared = await fs.mkdtemp(path.join(os.tmpdir(), "claimboard-shared-"));
    await fs.chmod(shared, 0o755);
    try {
      const started = await npmStart({ ...baseEnv, CLAIMBOARD_SHARED_DIR: shared, EMBEDDED_PG_PORT: String(await freePort()) }, copy.project);
      expect(started.output()).toContain(`the postgres user cannot reach ${path.join(copy.project, ".data")}`);
      expect((await fetch(`${started.url}/api/v1/health`)).status).toBe(200);
      const [cluster] = await fs.readdir(path.join(shared, "clusters"));
      expect(existsSync(path.join(shared, "clusters", cluster!, "postgres", "PG_VERSION"))).toBe(true);
      expect(existsSync(path.join(copy.project, ".data", "postgres"))).toBe(false);
      expect((await fs.readdir(shared)).some((name) => name.startsWith("postgres-"))).toBe(true); // the binaries' copy
      expect(await stopAndCheck(started, ["SIGTERM"], path.join(shared, "clusters", cluster!, "postgres"))).toBe(0);
    } finally {
      await copy.remove();
      await fs.rm(shared, { recursive: true, force: true });
    }
  }, 400_000);
});
