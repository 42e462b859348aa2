import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { admit, clearAccountFailures, deviceKey, forget, refund, type BackoffPolicy } from "./sign-in-backoff";

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await database?.close();
});

const policy: BackoffPolicy = { free: 3, baseSeconds: 60, maxSeconds: 600, quietSeconds: 60 };
const row = async (scope: string, key: string) =>
  (await database.db.execute<{ failures: number; wait: number }>(sql`
    SELECT failures, extract(epoch FROM next_at - now())::float8 AS wait FROM sign_in_backoff WHERE scope = ${scope} AND key = ${key}`))[0];

test("free attempts, then a wait that doubles up to the max, per scope and key", async () => {
  const { db } = database;
  const admitted: boolean[] = [];
  for (let i = 0; i < 4; i++) admitted.push(await admit(db, "account", "ana@example.com", policy));
  expect(admitted).toEqual([true, true, true, false]);
  expect((await row("account", "ana@example.com"))!.wait).toBeGreaterThan(policy.baseSeconds - 5);
  // Past its wait, one more is admitted, and the next wait is twice as long; the max bounds it.
  await db.execute(sql`UPDATE sign_in_backoff SET next_at = now() WHERE key = 'ana@example.com'`);
  expect(await admit(db, "account", "ana@example.com", policy)).toBe(true);
  expect((await row("account", "ana@example.com"))!.wait).toBeGreaterThan(2 * policy.baseSeconds - 5);
  await db.execute(sql`UPDATE sign_in_backoff SET failures = 40, next_at = now() WHERE key = 'ana@example.com'`);
  expect(await admit(db, "account", "ana@example.com", policy)).toBe(true);
  expect((await row("account", "ana@example.com"))!.wait).toBeLessThanOrEqual(policy.maxSeconds);
  expect(await admit(db, "address", "ana@example.com", policy)).toBe(true);
  expect(await admit(db, "account", "bo@example.com", policy)).toBe(true);
});

test("two attempts at once within the free ones are both admitted, whichever transaction began first", async () => {
  const { db } = database;
  await db.transaction(async (tx) => {
    await tx.execute(sql`SELECT now()`); // this transaction's now() is fixed here, before the other's
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await admit(db, "account", "twice@example.com", policy)).toBe(true); // another connection, committed
    expect(await admit(tx, "account", "twice@example.com", policy)).toBe(true);
  });
  expect((await row("account", "twice@example.com"))!.failures).toBe(2);
});

test("a key quiet past its wait starts over; a refund gives one back; a success forgets it", async () => {
  const { db } = database;
  await db.execute(sql`INSERT INTO sign_in_backoff (scope, key, failures, next_at, last_at)
    VALUES ('account', 'old@example.com', 9, now() - interval '61 seconds', now() - interval '2 hours')`);
  expect(await admit(db, "account", "old@example.com", policy)).toBe(true);
  expect((await row("account", "old@example.com"))!.failures).toBe(1);
  await refund(db, "account", "old@example.com");
  expect((await row("account", "old@example.com"))!.failures).toBe(0);
  await forget(db, "account", "old@example.com");
  expect(await row("account", "old@example.com")).toBeUndefined();
});

test("an admission also removes quiet rows of other keys (a sprayer's many emails do not pile up)", async () => {
  const { db } = database;
  await db.execute(sql`INSERT INTO sign_in_backoff (scope, key, failures, next_at, last_at)
    SELECT 'account', 'spray-' || n || '@example.com', 1, now() - interval '1 hour', now() - interval '1 hour' FROM generate_series(1, 150) n`);
  await admit(db, "address", "203.0.113.7", policy);
  const left = Number((await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM sign_in_backoff WHERE key LIKE 'spray-%'`))[0]!.n);
  expect(left).toBe(50);
});

test("unlocking forgets the account's and its devices' attempts (matched case-insensitively), not the address's", async () => {
  const { db } = database;
  for (let i = 0; i < 3; i++) {
    await admit(db, "account", "cy@example.com", policy);
    await admit(db, "device", deviceKey("cy@example.com", "d1"), policy);
    await admit(db, "address", "198.51.100.4", policy);
  }
  await admit(db, "device", deviceKey("cy@example.com.evil", "d2"), policy);
  expect(await admit(db, "account", "cy@example.com", policy)).toBe(false);
  expect(await clearAccountFailures(db, " Cy@Example.com ")).toBe(6);
  expect(await admit(db, "account", "cy@example.com", policy)).toBe(true);
  expect(await admit(db, "address", "198.51.100.4", policy)).toBe(false);
  expect(await row("device", deviceKey("cy@example.com.evil", "d2"))).toBeDefined();
});
