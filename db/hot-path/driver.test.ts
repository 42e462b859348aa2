import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { connectDatabase } from "@/db/client";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { driverOf, executePrepared } from ".";

// Guards for what the hot path takes from postgres.js and drizzle beyond their documented
// API (docs/hot-path.md). Each fails on the upgrade that breaks its trick, where the trick
// itself would only get slower, silently: a fallback path still answers correctly.

let d: TestDatabase;
beforeAll(async () => {
  d = await freshDatabase({ migrated: false });
});
afterAll(async () => {
  await d?.close();
});

test("drizzle keeps the driver at session.client, on a handle and in a transaction (the reserved connection)", async () => {
  expect(driverOf(d.db)).toBe(d.client);
  const inside = await d.db.transaction(async (tx) => driverOf(tx));
  // The handle db/client.ts's begin gave the body: a reserved connection with its savepoint.
  expect(typeof inside?.unsafe).toBe("function");
  expect(typeof (inside as unknown as { release?: unknown }).release).toBe("function");
  expect(typeof (inside as unknown as { savepoint?: unknown }).savepoint).toBe("function");
});

test("drizzle opens its transactions through the driver's begin, which db/client.ts replaces", async () => {
  const replaced = d.client.begin;
  let calls = 0;
  (d.client as { begin: unknown }).begin = (...args: Parameters<typeof replaced>) => (calls++, replaced(...args));
  try {
    await d.db.transaction(async (tx) => tx.execute(sql`SELECT 1`));
    await d.db.transaction(async (tx) => tx.transaction(async (inner) => inner.execute(sql`SELECT 1`)));
  } finally {
    (d.client as { begin: unknown }).begin = replaced;
  }
  expect(calls).toBe(2); // a nested transaction is a savepoint of the outer one, not a begin
});

test("executePrepared leaves a named prepared statement on its connection, on a handle and in a transaction", async () => {
  const one = connectDatabase(d.url, { max: 1 });
  try {
    await executePrepared(one.db, sql`SELECT ${1}::int AS guard_on_handle`);
    await one.db.transaction((tx) => executePrepared(tx, sql`SELECT ${2}::int AS guard_in_transaction`));
    const prepared = await one.client`SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%guard_%' AND statement NOT LIKE '%pg_prepared_statements%'`;
    expect(prepared.map((r) => r.statement).sort()).toEqual(["SELECT $1::int AS guard_in_transaction", "SELECT $1::int AS guard_on_handle"]);
  } finally {
    await one.client.end();
  }
});

test("a statement is written while the one ahead of it is unanswered: BEGIN ahead, COMMIT behind and sendAhead rest on it", async () => {
  const written: { text: string; at: number }[] = [];
  const one = connectDatabase(d.url, { max: 1, debug: (_c, text) => void written.push({ text, at: performance.now() }) });
  try {
    await one.client`SELECT 1`; // the connection's start-up (it reads the array types) is not the transaction's
    written.length = 0;
    await one.db.transaction(async (tx) => {
      await Promise.all([tx.execute(sql`SELECT pg_sleep(0.5) AS ahead`), tx.execute(sql`SELECT 2 AS behind`)]);
    });
    // Without pipelining the second is written when the first is answered, 500 ms on at least.
    const at = (word: string) => written.find((w) => w.text.includes(word))!.at;
    expect(at("behind") - at("ahead")).toBeLessThan(250);
    // BEGIN is written, and the body's first statement right after it, before any answer.
    expect(written.map((w) => w.text.trim().split(/\s/)[0])).toEqual(["BEGIN", "SELECT", "SELECT", "COMMIT"]);
  } finally {
    await one.client.end();
  }
});
