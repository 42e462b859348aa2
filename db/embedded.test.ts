import { statSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startEmbeddedPostgres } from "./embedded";

// The embedded cluster (`npm start` without DATABASE_URL) listens on 127.0.0.1, where any
// local user can connect: its superuser password must not be one printed in the source.
// A new cluster gets a random one, kept beside the data in `<dataDir>.password` (mode 600);
// a data folder made before that (password "claimboard", no file) keeps working.

const LEGACY = "claimboard";
let root: string;
beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "claimboard-pw-"));
  await fs.chmod(root, 0o755);
});
afterAll(() => fs.rm(root, { recursive: true, force: true }));

const passwordOf = (url: string) => decodeURIComponent(new URL(url).password);

async function connects(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    await sql`SELECT 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

test("a new cluster gets a random password, kept in <dataDir>.password (600), reused on the next start", async () => {
  const dataDir = path.join(root, "fresh");
  const first = await startEmbeddedPostgres({ dataDir, unsafeFast: true });
  let password: string;
  try {
    password = passwordOf(first.adminUrl);
    expect(password).not.toBe(LEGACY);
    expect(password.length).toBeGreaterThanOrEqual(20);
    expect(await connects(first.adminUrl)).toBe(true);
    const legacy = new URL(first.adminUrl);
    legacy.password = LEGACY;
    expect(await connects(legacy.toString()), "the fixed password is refused").toBe(false);
    expect((await fs.readFile(`${dataDir}.password`, "utf8")).trim()).toBe(password);
    expect(statSync(`${dataDir}.password`).mode & 0o777).toBe(0o600);
  } finally {
    await first.stop();
  }
  const second = await startEmbeddedPostgres({ dataDir, unsafeFast: true });
  try {
    expect(passwordOf(second.adminUrl)).toBe(password);
    expect(await connects(second.adminUrl)).toBe(true);
  } finally {
    await second.stop();
  }
}, 120_000);

test("a data folder from before (password claimboard, no kept file) still starts and connects", async () => {
  const dataDir = path.join(root, "old");
  const made = await startEmbeddedPostgres({ dataDir, unsafeFast: true });
  try {
    const sql = postgres(made.adminUrl, { max: 1, onnotice: () => {} });
    await sql.unsafe(`ALTER ROLE postgres PASSWORD '${LEGACY}'`);
    await sql.end();
  } finally {
    await made.stop();
  }
  await fs.rm(`${dataDir}.password`, { force: true });
  const again = await startEmbeddedPostgres({ dataDir, unsafeFast: true });
  try {
    expect(await connects(again.adminUrl)).toBe(true);
  } finally {
    await again.stop();
  }
}, 120_000);
