import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createActor, createTask, type ActorRef } from "@/lib/tasks";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { createTasks, openTransaction, tableCursors } from "@/test/realtime/helpers";
import { formatCursor, type Cursor } from "./cursor";
import { currentPosition, readFeed, type FeedEvent } from "./feed";

// readFeed is the whole of the gap-free guarantee: it must never hand out an event of a
// transaction that could still be followed by one sorting before it.

let database: TestDatabase;
let actor: ActorRef;
beforeAll(async () => {
  database = await freshDatabase();
  actor = await createActor(database.db, "user", "Feeder");
});
afterAll(async () => {
  await database?.close();
});

/**
 * Reads from `from` until `n` events came back. Another test file's open transaction (any
 * database of the cluster) also holds the horizon back, so "eventually", bounded.
 */
async function readAll(from: Cursor, n: number, limit = 500): Promise<FeedEvent[]> {
  const got: FeedEvent[] = [];
  let cursor = from;
  const deadline = performance.now() + 30_000;
  while (got.length < n && performance.now() < deadline) {
    const page = await readFeed(database.db, cursor, limit);
    got.push(...page.events);
    if (page.events.length > 0) cursor = page.events.at(-1)!.cursor;
    else await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return got;
}

test("an event whose transaction commits late is held back, not skipped, although later ids committed first", async () => {
  const from = await currentPosition(database.db);
  const held = await openTransaction(database);
  await held.run(createTask, { title: "held" }, actor);
  await createTasks(database.db, actor, 3, { title: "after" });

  // A reader that went by event id alone would now pass the held event's id for good.
  const during = await readFeed(database.db, from);
  expect(during.events).toEqual([]);
  expect(during.heldBack).toBe(true);

  await held.commit();
  const after = await readAll(from, 4);
  expect(after.map((e) => formatCursor(e.cursor))).toEqual(await tableCursors(database, { after: formatCursor(from) }));
  const ids = after.map((e) => BigInt(e.eventId));
  expect(ids[0]! < ids[1]!, "the held event has the lowest id yet comes last in commit order").toBe(true);
});

test("a transaction that took its id first but wrote its event last sorts first, and nothing is skipped", async () => {
  const from = await currentPosition(database.db);
  const early = await openTransaction(database);
  await early.tx.execute(sql`SELECT pg_current_xact_id()`);
  await createTasks(database.db, actor, 2, { title: "middle" });
  await early.run(createTask, { title: "late writer" }, actor);
  expect((await readFeed(database.db, from)).events).toEqual([]);
  await early.commit();

  const got = await readAll(from, 3);
  expect(got.map((e) => e.type)).toEqual(["created", "created", "created"]);
  expect(got.map((e) => formatCursor(e.cursor))).toEqual(await tableCursors(database, { after: formatCursor(from) }));
  const [first, ...rest] = got.map((e) => BigInt(e.eventId));
  expect(rest.every((id) => id < first!), "the first event by transaction has the highest event id").toBe(true);
});

test("a rolled-back transaction leaves no event and stops holding the feed back", async () => {
  const from = await currentPosition(database.db);
  const doomed = await openTransaction(database);
  await doomed.run(createTask, { title: "never" }, actor);
  await createTasks(database.db, actor, 2, { title: "kept" });
  await doomed.rollback();
  const got = await readAll(from, 2);
  expect(got).toHaveLength(2);
  expect(got.map((e) => formatCursor(e.cursor))).toEqual(await tableCursors(database, { after: formatCursor(from) }));
});

test("paging through the feed gives the same sequence as one read, with the event's fields", async () => {
  const from = { txId: 0n, eventId: 0n };
  const expected = await tableCursors(database);
  const paged = await readAll(from, expected.length, 2);
  expect(paged.map((e) => formatCursor(e.cursor))).toEqual(expected);
  const one = paged[0]!;
  expect(one).toMatchObject({ queue: "default", type: "created", version: 1, status: "queued", actor });
  expect(one.taskId).toMatch(/^\d+$/);
  expect(one.at).toBeInstanceOf(Date);
});
