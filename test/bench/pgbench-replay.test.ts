import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, expect, test } from "vitest";
import { captureCycle } from "@/bench/lib/capture";
import { seedQueued } from "@/bench/lib/seed";
import { runPgbench, script } from "@/bench/pgbench";
import { freshDatabase, type TestDatabase } from "@/test/db";

// The bench's raw-SQL baseline is only a baseline if pgbench replays the very statements the
// engine runs and they do the same work: capture one engine cycle, replay it with pgbench,
// and check every task went queued → done with the engine's two events (a claim with start is
// one), and a NOTIFY per transaction. (pgbench comes with postgresql-client; `npm run bench`
// installs it if missing.)

const pgbench = spawnSync("sh", ["-c", "command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | tail -1"], { encoding: "utf8" })
  .stdout.trim().split("\n").filter(Boolean)[0];

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db?.close();
});

test.skipIf(!pgbench)("pgbench replays the engine's captured cycle: claim with start → complete, events and NOTIFY", async () => {
  const cycle = await captureCycle(db.url);
  const text = script(cycle, "cycle");
  expect(text).toContain("\\gset");
  expect(text.match(/pg_notify\(/g)).toHaveLength(2);
  expect(script(cycle, "cycle-no-notify")).not.toContain("pg_notify(");

  await seedQueued(db.url, 4 * 5 + 8); // slack: a claim never comes back empty under SKIP LOCKED
  const rate = await runPgbench(pgbench!, db.url, cycle, "cycle", 4, 5);
  console.log(`[pgbench-replay] 20 cycles at ${rate.toFixed(0)} cycles/s`);

  const tasks = await db.client<{ status: string; version: number; n: number }[]>`
    SELECT status::text, version, count(*)::int AS n FROM tasks WHERE title LIKE 'bench %' GROUP BY 1, 2 ORDER BY status::text, version`;
  expect(tasks).toEqual([
    { status: "done", version: 3, n: 20 },
    { status: "queued", version: 1, n: 8 },
  ]);
  const events = await db.client<{ type: string; n: number }[]>`
    SELECT e.type::text, count(*)::int AS n FROM task_events e JOIN tasks t ON t.id = e.task_id
    WHERE t.title LIKE 'bench %' GROUP BY 1 ORDER BY 1`;
  // A claim with start is one claimed event (started: true): two events a task after created.
  expect(events).toEqual([
    { type: "claimed", n: 20 },
    { type: "completed", n: 20 },
  ]);
});

test.skipIf(!pgbench)("pgbench replays the agent loop: one transaction a task completes the one in hand and claims the next", async () => {
  const loopDb = await freshDatabase();
  try {
    const cycle = await captureCycle(loopDb.url);
    const text = script(cycle, "loop");
    expect(text).toContain("\\gset next_");
    expect(text.match(/pg_notify\(/g)).toHaveLength(2); // the first claim's, and the loop's one
    expect(cycle.loop.filter((s) => s.includes("pg_notify("))).toHaveLength(1);

    await seedQueued(loopDb.url, 4 * 6 + 8);
    const rate = await runPgbench(pgbench!, loopDb.url, cycle, "loop", 4, 5);
    console.log(`[pgbench-replay] 20 loop transactions at ${rate.toFixed(0)} tasks/s`);

    const tasks = await loopDb.client<{ status: string; version: number; n: number }[]>`
      SELECT status::text, version, count(*)::int AS n FROM tasks WHERE title LIKE 'bench %' GROUP BY 1, 2 ORDER BY status::text, version`;
    // Each client completed 5 and holds the 6th it claimed with the 5th completion.
    expect(tasks).toEqual([
      { status: "done", version: 3, n: 20 },
      { status: "queued", version: 1, n: 8 },
      { status: "started", version: 2, n: 4 },
    ]);
    const events = await loopDb.client<{ type: string; n: number }[]>`
      SELECT e.type::text, count(*)::int AS n FROM task_events e JOIN tasks t ON t.id = e.task_id
      WHERE t.title LIKE 'bench %' GROUP BY 1 ORDER BY 1`;
    expect(events).toEqual([
      { type: "claimed", n: 24 },
      { type: "completed", n: 20 },
    ]);
    const [row] = await loopDb.client<{ txs: number }[]>`
      SELECT count(DISTINCT tx_id)::int AS txs FROM task_events e JOIN tasks t ON t.id = e.task_id WHERE t.title LIKE 'bench %'`;
    expect(row!.txs).toBe(24); // 4 first claims + 20 loop transactions
  } finally {
    await loopDb.close();
  }
});
