import { afterAll, beforeAll, expect, test } from "vitest";
import { churnRow, churnSoak } from "@/bench/churn";
import { growthFactors, SMALL_BYTES, type Relation, type Sample } from "@/bench/churn-sizes";
import { freshDatabase, type TestDatabase } from "@/test/db";

// The churn soak's arithmetic (bench/churn.ts, the row churn-bloat-*): which relations count, how
// each kind's growth is taken, and that a tiny run's samples and HOT ratio are the server's own
// figures. The test server may keep autovacuum off, so the sizes themselves prove nothing here.

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db?.close();
});

const rel = (name: string, table: string, kind: Relation["kind"], bytes: number, rows = 0): Relation => ({ name, table, kind, index: name !== table, bytes, rows });
const sample = (tasks: number, relations: Relation[]): Sample => ({ relations, tasks, events: 2 * tasks });

test("a set's growth is its size's, a per-task relation's is per row it holds, small sizes count as 64 KiB, the log is left out", () => {
  const baseline = sample(1000, [
    rel("task_held", "task_held", "set", 256 * 1024),
    rel("task_held_order", "task_held", "set", 8 * 1024),
    rel("task_state", "task_state", "per-task", 1_000_000, 1000),
    rel("tasks_settled_owner", "task_state", "per-task", 100_000, 500),
    rel("task_events_2026_12", "task_events", "log", 500_000),
  ]);
  const end = sample(4000, [
    rel("task_held", "task_held", "set", 640 * 1024),
    rel("task_held_order", "task_held", "set", 112 * 1024),
    rel("task_state", "task_state", "per-task", 6_000_000, 4000),
    rel("tasks_settled_owner", "task_state", "per-task", 720_000, 3600), // a partial index: its rows are the done tasks
    rel("task_events_2026_12", "task_events", "log", 5_000_000),
    rel("task_lease", "task_lease", "set", 1_000_000), // not in the baseline: no factor
  ]);
  const growth = growthFactors(baseline, end);
  expect(growth.map((g) => [g.name, g.factor])).toEqual([
    ["task_held", 2.5],
    ["task_held_order", 1.75], // 112 KiB ÷ the 64 KiB floor, not ÷ 8 KiB
    ["task_state", 1.5], // 1,500 B a row ÷ 1,000 B a row, though the table is 6× the size
    ["tasks_settled_owner", 1], // 200 B a done task at both ends, though the tasks grew 4× and its rows 7.2×
  ]);
  expect(SMALL_BYTES).toBe(64 * 1024);
});

test("a tiny soak: every loop table and index sampled, the growth from the two samples, task_state's HOT ratio from its counters", async () => {
  const lines: string[] = [];
  const opts = { tasks: 300, workers: 4, steadyMinutes: 0, backlog: 100, allowAutovacuumOff: true, log: (l: string) => lines.push(l) };
  const r = await churnSoak(db.url, opts);
  expect(r.done).toBeGreaterThanOrEqual(300);
  expect(lines.some((l) => l.startsWith("baseline after"))).toBe(true);
  const names = r.end.relations.map((x) => x.name);
  for (const name of ["task_state", "tasks_pkey", "tasks_status_order", "task_content", "task_search_words", "task_queued_order", "task_held_order", "task_held_owner", "task_lease_until", "claim_waits_pkey"]) {
    expect(names).toContain(name);
  }
  expect(r.end.relations.some((x) => x.kind === "log" && x.table === "task_events")).toBe(true);
  expect(r.growth.every((g) => g.kind !== "log")).toBe(true);

  // The end sample is the server's figures now (nothing writes after the soak), and each factor follows from the samples.
  const sizes = await db.client<{ name: string; bytes: string }[]>`
    SELECT relname AS name, pg_relation_size(oid)::bigint AS bytes FROM pg_class WHERE relname IN ('task_state', 'tasks_status_order', 'task_held', 'task_queued_order')`;
  for (const s of sizes) expect(r.end.relations.find((x) => x.name === s.name)?.bytes).toBe(Number(s.bytes));
  const [{ tasks }] = await db.client<[{ tasks: number }]>`SELECT count(*)::int AS tasks FROM task_state`;
  expect(r.end.tasks).toBe(tasks);
  const state = r.growth.find((g) => g.name === "task_state")!;
  expect(state.factor).toBeCloseTo((Math.max(state.end, SMALL_BYTES) / r.end.tasks) / (Math.max(state.baseline, SMALL_BYTES) / r.baseline.tasks), 10);
  const [{ done }] = await db.client<[{ done: number }]>`SELECT count(*)::int AS done FROM task_state WHERE status = 'done'`;
  expect(r.end.relations.find((x) => x.name === "tasks_settled_owner")?.rows).toBe(done);
  expect(r.growth[0]!.factor).toBe(Math.max(...r.growth.map((g) => g.factor)));

  // Each loop task updates task_state twice (the claim, the completion), and neither is HOT: the board's status indexes name status.
  const stats = r.stats.find((s) => s.relname === "task_state")!;
  expect(stats.n_tup_upd).toBe(2 * r.done);
  expect(r.hot).toBe(stats.n_tup_hot_upd / stats.n_tup_upd);

  const row = churnRow("churn-bloat-test", opts, r);
  expect(row.ratio).toBe(r.growth[0]!.factor);
  expect(row.met).toBe(r.growth[0]!.factor <= 2);
}, 180_000);
