import { afterAll, beforeAll, expect, test } from "vitest";
import { walBetween, engineWal, walRows, type WalCount } from "@/bench/wal";
import { freshDatabase, type TestDatabase } from "@/test/db";

// The bench's WAL rows (wal-per-task-vs-pgboss, wal-records-per-task) at a small size: the
// window holds the drain, pg_walinspect counts it, the rows divide the right figures. Other
// test files write to the same server meanwhile, so the counts here are floors, not figures.

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
  await db.client`CREATE EXTENSION IF NOT EXISTS pg_walinspect`;
});
afterAll(async () => {
  await db?.close();
});

test("an empty window counts nothing", async () => {
  const [row] = await db.client<{ lsn: string }[]>`SELECT pg_current_wal_lsn()::text AS lsn`;
  expect(await walBetween(db.client, row!.lsn, row!.lsn, 1)).toEqual({ bytes: 0, records: 0, fpiBytes: 0 });
});

test("the engine's loop: every task drained inside the window, its WAL counted per task, and the rows' ratios", async () => {
  const engine = await engineWal(db.client, db.url, 4, 40);
  // A loop task writes ~4 KB in ~40 records (docs/performance.md): an update of the task, its events, their indexes.
  expect(engine.records).toBeGreaterThan(20);
  expect(engine.bytes).toBeGreaterThan(1500);
  expect(engine.fpiBytes).toBeLessThanOrEqual(engine.bytes);
  const [row] = await db.client<{ done: number }[]>`SELECT count(*)::int AS done FROM tasks WHERE status = 'done'`;
  expect(row!.done).toBe(40);

  const pgboss: WalCount = { bytes: engine.bytes / 2, records: engine.records / 4, fpiBytes: 0 };
  const rows = await walRows(1, async () => engine, async () => pgboss, "4 workers, 40 tasks");
  expect(rows.map((r) => [r.name, r.value, r.baseline, r.ratio])).toEqual([
    ["wal-per-task-vs-pgboss", engine.bytes, pgboss.bytes, 2],
    ["wal-records-per-task", engine.records, pgboss.records, 4],
  ]);
});
