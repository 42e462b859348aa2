import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { createUser } from "./users";

// Email and password sign-in (lib/auth/options.ts) as next-auth calls it. Input no account
// can have — an email over 254 characters, a password over 1,024 — is refused before any
// work: no argon2 hash (counted in CPU time against sign-ins that do hash, not in wall
// time), and no sign-in failure row keyed by kilobytes of junk.

type Authorize = (credentials: Record<string, string>, request: { headers: Record<string, string> }) => Promise<unknown>;

let database: TestDatabase;
let authorize: Authorize;
let closePool: () => Promise<void>;
beforeAll(async () => {
  database = await freshDatabase();
  process.env.DATABASE_URL = database.url;
  const { authOptions } = await import("./options");
  const provider = authOptions.providers.find((p) => p.id === "credentials") as unknown as { options: { authorize: Authorize } };
  authorize = (credentials, request) => provider.options.authorize(credentials, request);
  const { getDatabase } = await import("@/db");
  closePool = () => getDatabase().client.end({ timeout: 5 });
  await createUser(database.db, { email: "real@example.com", name: "Real", role: "staff", password: "the-real-password" });
});
afterAll(async () => {
  await closePool?.();
  await database?.close();
});

const failureKeys = async () =>
  (await database.db.execute<{ key: string }>(sql`SELECT key FROM sign_in_backoff`)).map((r) => r.key);

/** CPU time (all threads of this process: argon2 runs on libuv's pool) of `attempts` sign-ins. */
async function cpuOf(attempts: Record<string, string>[]): Promise<number> {
  const before = process.cpuUsage();
  for (const credentials of attempts) expect(await authorize(credentials, { headers: {} })).toBeNull();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

test("an email over 254 characters is refused with the one answer, and leaves no failure row", async () => {
  for (const length of [255, 3_000, 100_000]) {
    const email = `${"a".repeat(length - "@example.com".length)}@example.com`;
    expect(await authorize({ email, password: "whatever-it-is" }, { headers: {} })).toBeNull();
  }
  expect((await failureKeys()).filter((key) => key.length > 254)).toEqual([]);
});

test("a password over 1,024 characters costs no argon2 work", async () => {
  // Unknown emails, each its own: an account's lockout (5 failures) would stop the hashing anyway.
  const attempts = (password: () => string) =>
    Array.from({ length: 12 }, () => ({ email: `nobody-${randomBytes(4).toString("hex")}@example.com`, password: password() }));
  await cpuOf(attempts(() => "warm-up-password"));
  const hashed = await cpuOf(attempts(() => randomBytes(16).toString("hex")));
  const long = await cpuOf(attempts(() => randomBytes(600).toString("hex").padEnd(1025, "x")));
  console.log(`[sign-in] 12 wrong passwords: ${hashed.toFixed(0)} ms CPU; 12 over 1,024 characters: ${long.toFixed(0)} ms CPU`);
  expect(long, "CPU ms of 12 over-long passwords vs 12 hashed").toBeLessThan(hashed / 4);
  // And the real account is not refused for an ordinary password.
  expect(await authorize({ email: "real@example.com", password: "the-real-password" }, { headers: {} })).toMatchObject({ email: "real@example.com" });
});
