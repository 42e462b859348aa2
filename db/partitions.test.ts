import { getTableConfig } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ensurePartitions, listPartitions, monthOf } from "@/lib/events/partitions";
import { databaseClock } from "@/lib/tasks/core/clock";
import { appendEvents, type NewEvent } from "@/lib/tasks/core/events";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { migrateDatabase } from "./migrate";
import { taskEvents } from "./schema";

// Migration 0012 turns a task_events that has rows into a partitioned one: run here on a
// database migrated to 0011 with events in three months, as an existing deployment would be.

const SYSTEM = "00000000-0000-0000-0000-000000000000";
let database: TestDatabase;
let before: { row: string }[];
const monthsAgo = (n: number) => {
  const d = new Date();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() - n);
  return d;
};

beforeAll(async () => {
  database = await freshDatabase({ migratedUpTo: 11 });
  const sql = database.client;
  const [task] = await sql<{ id: string }[]>`INSERT INTO tasks (queue, title) VALUES ('default', 'old') RETURNING id::text`;
  for (const at of [monthsAgo(4), monthsAgo(4), monthsAgo(2), new Date()]) {
    await sql`INSERT INTO task_events (task_id, queue, type, actor_id, payload, created_at)
              VALUES (${task!.id}, 'default', 'heartbeat', ${SYSTEM},
                      ${JSON.stringify({ at: at.toISOString(), big: 12345678901234567890n.toString() })}::jsonb, ${at.toISOString()}::timestamptz)`;
  }
  // A rolled-back insert takes an id too: the sequence must continue past it, not past max(id).
  await sql.begin(async (tx) => {
    await tx`INSERT INTO task_events (task_id, queue, type, actor_id, created_at) VALUES (${task!.id}, 'default', 'heartbeat', ${SYSTEM}, now())`;
    throw new Error("rolled back");
  }).catch(() => {});
  before = await sql<{ row: string }[]>`SELECT e::text AS row FROM task_events e ORDER BY id`;
  await migrateDatabase(database.url);
});
afterAll(async () => {
  await database?.close();
});

describe("migration 0012 on a task_events with rows", () => {
  test("every row is kept as it was, now in its month's partition", async () => {
    const sql = database.client;
    expect(await sql<{ row: string }[]>`SELECT e::text AS row FROM task_events e ORDER BY id`).toEqual(before);
    const placed = await sql<{ partition: string; n: number }[]>`
      SELECT tableoid::regclass::text AS partition, count(*)::int AS n FROM task_events GROUP BY 1 ORDER BY 1`;
    const name = (d: Date) => `task_events_${monthOf(d).replace("-", "_")}`;
    expect(placed).toEqual([
      { partition: name(monthsAgo(4)), n: 2 },
      { partition: name(monthsAgo(2)), n: 1 },
      { partition: name(new Date()), n: 1 },
    ]);
  });

  test("partitions cover every month from the oldest event through next month, plus DEFAULT", async () => {
    const months = (await listPartitions(database.db)).map((p) => p.month);
    expect(months).toEqual([4, 3, 2, 1, 0, -1].map((n) => monthOf(monthsAgo(n))));
    const [row] = await database.client<{ parts: string[] }[]>`
      SELECT array_agg(inhrelid::regclass::text) AS parts FROM pg_inherits WHERE inhparent = 'task_events'::regclass`;
    expect(row!.parts).toContain("task_events_default");
  });

  test("the id sequence goes on past every id handed out, the rolled-back one too, and is the column's", async () => {
    const sql = database.client;
    const [{ last } = { last: "" }] = await sql<{ last: string }[]>`SELECT max(id)::text AS last FROM task_events`;
    const [seq] = await sql<{ seq: string; next: string }[]>`
      SELECT pg_get_serial_sequence('task_events', 'id') AS seq, nextval('task_events_id_seq')::text AS next`;
    expect(seq!.seq).toBe("public.task_events_id_seq");
    expect(BigInt(seq!.next)).toBe(BigInt(last) + 2n);
  });

  test("a transaction's events still take rising ids in the order written (the feed's (tx_id, id) order)", async () => {
    // Synthetic events: only their ids matter here, not a transition's payload.
    const events = (["claimed", "started", "heartbeat"] as const).map((type) => ({ taskId: null, queue: "default", type, actorId: SYSTEM, payload: {} })) as unknown as NewEvent[];
    const ids = await database.db.transaction((tx) => appendEvents(tx, databaseClock, events));
    expect(ids.map((id) => id - ids[0]!)).toEqual([0n, 1n, 2n]);
    const rows = await database.client<{ type: string; tx: string }[]>`
      SELECT type::text, tx_id::text AS tx FROM task_events WHERE id >= ${ids[0]!.toString()}::bigint ORDER BY tx_id, id`;
    expect(rows.map((r) => r.type)).toEqual(["claimed", "started", "heartbeat"]);
    expect(new Set(rows.map((r) => r.tx)).size).toBe(1);
  });

  test("every index schema.ts names is on the parent, and on each partition", async () => {
    const sql = database.client;
    // No primary key since migration 0017 (CHANGELOG.md "The write path"): the schema's indexes are all of them.
    const expected = getTableConfig(taskEvents).indexes.map((i) => i.config.name!).sort();
    const onParent = await sql<{ name: string }[]>`
      SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'task_events'::regclass ORDER BY 1`;
    expect(onParent.map((r) => r.name)).toEqual(expected);
    const perPartition = await sql<{ partition: string; n: number }[]>`
      SELECT i.inhrelid::regclass::text AS partition, count(x.indexrelid)::int AS n
        FROM pg_inherits i LEFT JOIN pg_index x ON x.indrelid = i.inhrelid
       WHERE i.inhparent = 'task_events'::regclass GROUP BY 1`;
    for (const p of perPartition) expect(p, p.partition).toEqual({ partition: p.partition, n: expected.length });
  });

  test("ensuring partitions again makes none; a start does it without a migration", async () => {
    expect(await ensurePartitions(database.db)).toBe(0);
    await migrateDatabase(database.url); // what every start runs
    expect((await listPartitions(database.db)).length).toBe(6);
  });

  test("rows in DEFAULT (their month had no partition) move into a partition of their own, unchanged (migration 0014)", async () => {
    const sql = database.client;
    const old = monthsAgo(8);
    await sql`INSERT INTO task_events (task_id, queue, type, actor_id, created_at) VALUES (NULL, 'default', 'breaker_reset', ${SYSTEM}, ${old.toISOString()}::timestamptz)`;
    const where = () => sql<{ partition: string }[]>`SELECT tableoid::regclass::text AS partition FROM task_events WHERE created_at = ${old.toISOString()}::timestamptz`;
    expect((await where())[0]!.partition).toBe("task_events_default");
    const rows = await sql<{ row: string }[]>`SELECT e::text AS row FROM task_events e ORDER BY id`;

    expect(await ensurePartitions(database.db)).toBe(1);
    const name = `task_events_${monthOf(old).replace("-", "_")}`;
    expect((await where())[0]!.partition).toBe(name);
    expect(await sql<{ row: string }[]>`SELECT e::text AS row FROM task_events e ORDER BY id`).toEqual(rows);
    expect((await listPartitions(database.db)).map((p) => p.month)).toContain(monthOf(old));
    // The month it made and the new DEFAULT carry the guard like every other partition.
    for (const table of [name, "task_events_default"]) await expect(sql.unsafe(`TRUNCATE ${table}`)).rejects.toThrow(/append-only/);
    await expect(sql.unsafe(`DELETE FROM ${name}`)).rejects.toThrow(/append-only/);
    expect(await ensurePartitions(database.db)).toBe(0);
  });
});
