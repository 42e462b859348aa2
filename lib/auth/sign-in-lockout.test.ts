import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { clearAccountFailures, isLocked, recordFailure } from "./sign-in-lockout";

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await database?.close();
});

const policy = { limit: 3, windowSeconds: 60 };
const rows = async (scope: string, key: string) =>
  Number((await database.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM sign_in_failures WHERE scope = ${scope} AND key = ${key}`))[0]!.n);

test("locked at the limit inside the window, per scope and key", async () => {
  const { db } = database;
  for (let i = 0; i < 2; i++) await recordFailure(db, "account", "ana@example.com", policy);
  expect(await isLocked(db, "account", "ana@example.com", policy)).toBe(false);
  await recordFailure(db, "account", "ana@example.com", policy);
  expect(await isLocked(db, "account", "ana@example.com", policy)).toBe(true);
  expect(await isLocked(db, "address", "ana@example.com", policy)).toBe(false);
  expect(await isLocked(db, "account", "bo@example.com", policy)).toBe(false);
});

test("failures older than the window stop counting, and the next failure deletes them", async () => {
  const { db } = database;
  await db.execute(sql`INSERT INTO sign_in_failures (scope, key, failed_at)
    SELECT 'account', 'old@example.com', now() - interval '61 seconds' FROM generate_series(1, 3)`);
  expect(await isLocked(db, "account", "old@example.com", policy)).toBe(false);
  await recordFailure(db, "account", "old@example.com", policy);
  expect(await rows("account", "old@example.com")).toBe(1);
  // One failure inside the window plus two aged ones is not a lock either.
  await db.execute(sql`INSERT INTO sign_in_failures (scope, key, failed_at) VALUES ('account', 'old@example.com', now() - interval '2 minutes')`);
  await recordFailure(db, "account", "old@example.com", policy);
  expect(await isLocked(db, "account", "old@example.com", policy)).toBe(false);
});

test("a failure also removes expired rows of other keys (a sprayer's many emails do not pile up)", async () => {
  const { db } = database;
  await db.execute(sql`INSERT INTO sign_in_failures (scope, key, failed_at)
    SELECT 'account', 'spray-' || n || '@example.com', now() - interval '1 hour' FROM generate_series(1, 150) n`);
  await recordFailure(db, "address", "203.0.113.7", policy);
  const left = Number((await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM sign_in_failures WHERE key LIKE 'spray-%'`))[0]!.n);
  expect(left).toBe(50);
});

test("unlocking forgets the account's failures (matched case-insensitively), not the address's", async () => {
  const { db } = database;
  for (let i = 0; i < 3; i++) {
    await recordFailure(db, "account", "cy@example.com", policy);
    await recordFailure(db, "address", "198.51.100.4", policy);
  }
  expect(await isLocked(db, "account", "cy@example.com", policy)).toBe(true);
  expect(await clearAccountFailures(db, " Cy@Example.com ")).toBe(3);
  expect(await isLocked(db, "account", "cy@example.com", policy)).toBe(false);
  expect(await isLocked(db, "address", "198.51.100.4", policy)).toBe(true);
});
