import { sql } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Executor } from "@/db/client";
import type { EventType } from "@/db/schema";
import { ManualClock, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import type { Distribution, QueueDistributions } from "./distributions";
import { FINE_RATIO } from "./fine-buckets";
import { readInsights, type Insights } from "./insights";
import { forgetRollups, rollUp } from "./rollup";
import type { WindowName } from "./window";

// The rollup against the exact raw read (readInsights with rollups: false) on the same
// random event logs, written straight into task_events with explicit times and tx ids.

const STEP_TYPES = [
  "claimed", "started", "heartbeat", "heartbeat", "check_confirmed", "side_effect", "completed",
  "failed", "released", "requeued", "lease_expired", "escalated",
] as const satisfies EventType[];

const HOUR = 3_600_000;

let f: EngineFixture;
let actors: ActorRef[];
let txIds = 1_000_000;
let runs = 0;

beforeAll(async () => {
  f = await engineFixture();
  actors = [await f.actor("Ada"), await f.actor("Ben"), await f.actor("bot-1", "agent"), await f.actor("bot-2", "agent")];
});
afterAll(async () => {
  await f?.close();
});

interface TaskPlan {
  queue: number;
  startMs: number;
  steps: { type: number; gapMs: number; sameTx: boolean; actor: number; lapsedOwner: number; starts?: boolean }[];
}

const taskPlan = fc.record({
  queue: fc.integer({ min: 0, max: 1 }),
  // Anywhere in the day, or in the 10 minutes before an hour ends (base is 22 min 47 s before
  // one): those tasks' intervals cross into the next hour, the rollup's and the tail's hard case.
  startMs: fc.oneof(
    fc.integer({ min: 0, max: 23 * HOUR }),
    fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 600_000 })).map(([h, d]) => h * HOUR + 1_367_000 - d),
  ),
  steps: fc.array(
    fc.record({
      type: fc.integer({ min: 0, max: STEP_TYPES.length - 1 }),
      gapMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 900_000 })),
      sameTx: fc.boolean(),
      actor: fc.integer({ min: 0, max: 3 }),
      lapsedOwner: fc.integer({ min: -1, max: 3 }),
      // A claim that started in one act (one `claimed` event with started: true) or a claim alone.
      starts: fc.boolean(),
    }),
    { minLength: 1, maxLength: 10 },
  ),
});

/** Writes the tasks' events (each task's in time order) from `base`, with a lease change at `changeMs` in queue 0. */
async function writeLog(db: Executor, names: string[], base: Date, tasks: TaskPlan[], changeMs: number | null): Promise<void> {
  const values = [];
  for (const t of tasks) {
    const [task] = await db.execute<{ id: string }>(sql`
      INSERT INTO tasks (queue, title, status, version, created_at, updated_at)
      VALUES (${names[t.queue]!}, 'random', 'queued', 1, ${base.toISOString()}, ${base.toISOString()}) RETURNING id`);
    let time = base.getTime() + t.startMs;
    let tx = ++txIds;
    values.push(sql`(${task!.id}::bigint, ${names[t.queue]!}, 'created', ${actors[0]!.id}::uuid, '{}'::jsonb, ${new Date(time).toISOString()}::timestamptz, ${String(tx)}::xid8)`);
    for (const step of t.steps) {
      time += step.gapMs;
      if (!step.sameTx) tx = ++txIds;
      const type = STEP_TYPES[step.type]!;
      const payload = type === "lease_expired" && step.lapsedOwner >= 0 ? { previousOwnerId: actors[step.lapsedOwner]!.id }
        : type === "claimed" && step.starts ? { started: true } : {};
      values.push(sql`(${task!.id}::bigint, ${names[t.queue]!}, ${type}::event_type, ${actors[step.actor]!.id}::uuid, ${JSON.stringify(payload)}::jsonb, ${new Date(time).toISOString()}::timestamptz, ${String(tx)}::xid8)`);
    }
  }
  if (changeMs !== null) {
    const payload = JSON.stringify({ changes: { leaseSeconds: { from: 300, to: 600 } } });
    values.push(sql`(NULL, ${names[0]!}, 'settings_changed', ${actors[1]!.id}::uuid, ${payload}::jsonb, ${new Date(base.getTime() + changeMs).toISOString()}::timestamptz, ${String(++txIds)}::xid8)`);
  }
  await db.execute(sql`INSERT INTO task_events (task_id, queue, type, actor_id, payload, created_at, tx_id) VALUES ${sql.join(values, sql`, `)}`);
}

/** A rollup-estimated percentile is within 1 % of percentile_cont's (plus 1 ms: the sub-millisecond bucket). */
function expectDistribution(got: Distribution | undefined, exact: Distribution | undefined, where: string) {
  expect(got === undefined, where).toBe(exact === undefined);
  if (!got || !exact) return;
  expect({ count: got.count, max: got.max, counts: got.counts }, where).toEqual({ count: exact.count, max: exact.max, counts: exact.counts });
  for (const p of ["p50", "p95", "p99"] as const) {
    expect(Math.abs(got[p] - exact[p]), `${where} ${p}: ${got[p]} vs ${exact[p]}`).toBeLessThanOrEqual(exact[p] * (FINE_RATIO - 1) + 1);
  }
}

function expectDistributions(got: QueueDistributions, exact: QueueDistributions, where: string) {
  expect(Object.keys(got).sort(), where).toEqual(Object.keys(exact).sort());
  for (const metric of Object.keys(exact) as (keyof QueueDistributions)[]) expectDistribution(got[metric], exact[metric], `${where} ${metric}`);
}

function expectSame(rolled: Insights, exact: Insights) {
  expect(rolled.overview.map((o) => o.queue.name)).toEqual(exact.overview.map((o) => o.queue.name));
  rolled.overview.forEach((o, i) => {
    const e = exact.overview[i]!;
    expectDistributions(o.distributions, e.distributions, o.queue.name);
    expect(o.leaseChangedAt).toEqual(e.leaseChangedAt);
    expect(o.populations.map((p) => p.population)).toEqual(e.populations.map((p) => p.population));
    o.populations.forEach((p, j) => {
      const ep = e.populations[j]!;
      expectDistributions(p.distributions, ep.distributions, `${o.queue.name} ${p.population}`);
      const { p99Ms, ...evidence } = p.evidence;
      const { p99Ms: exactP99, ...exactEvidence } = ep.evidence;
      expect(evidence).toEqual(exactEvidence);
      expect(p99Ms === null).toBe(exactP99 === null);
    });
  });
  expect(rolled.selected?.series).toEqual(exact.selected?.series);
  expect(rolled.selected?.claimants).toEqual(exact.selected?.claimants);
}

describe("the rollup reproduces the raw read", () => {
  test("random logs over a day: distributions (1 %), evidence, series, claimants and counts since a lease change", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(taskPlan, { minLength: 1, maxLength: 40 }), fc.option(fc.integer({ min: 0, max: 23 * HOUR })), async (tasks, changeMs) => {
        // Each run its own queues and its own day (in the past of the real clock: closed), ending at an odd instant (bars and hours unaligned).
        const run = ++runs;
        const names = [await f.queue(`r${run}-a`), await f.queue(`r${run}-b`)];
        const base = new Date(Date.UTC(2015, 0, 1) + run * 24 * HOUR + 37 * 60_000 + 13_457);
        await writeLog(f.db, names, base, tasks, changeMs);
        // A first reader at mid-day rolls up the morning: the afternoon's rollup must pair its
        // first events with the morning's (the walk back along the task's events).
        const midday = new ManualClock(new Date(base.getTime() + 12 * HOUR));
        await readInsights(f.db, { queue: names[0]!, window: "24h", clock: midday });
        const clock = new ManualClock(new Date(base.getTime() + 24 * HOUR - 60_000));
        for (const window of ["24h", "7d"] as WindowName[]) {
          for (const queue of names) {
            const rolled = await readInsights(f.db, { queue, window, clock });
            const exact = await readInsights(f.db, { queue, window, clock, rollups: false });
            expectSame(rolled, exact);
          }
        }
        const [rolledHours] = await f.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM insight_hours WHERE queue = ${names[0]!}`);
        expect(rolledHours!.n).toBeGreaterThanOrEqual(23); // the day's closed hours (and the 7 d window's earlier, empty ones)
      }),
      { numRuns: 15 },
    );
  });
});

describe("rolled up once, by whoever reads first", () => {
  let names: string[];
  let base: Date;
  beforeAll(async () => {
    names = [await f.queue("race-a"), await f.queue("race-b")];
    base = new Date(Date.UTC(2024, 5, 1));
    const tasks: TaskPlan[] = Array.from({ length: 30 }, (_, i) => ({
      queue: i % 2, startMs: i * 7 * 60_000,
      steps: [0, 1, 2, 2, 6].map((type, k) => ({ type, gapMs: 20_000 + k * 1_000 + i, sameTx: false, actor: 2 + (i % 2), lapsedOwner: -1 })),
    }));
    await writeLog(f.db, names, base, tasks, null);
  });

  test("two readers racing on the same hours: one writes them, the other nothing, and nothing is counted twice", async () => {
    const a = f.database.connect();
    const b = f.database.connect();
    const end = new Date(base.getTime() + 4 * HOUR);
    const written = await Promise.all([rollUp(a.db, base, end, "race-a"), rollUp(b.db, base, end, "race-a")]);
    expect(written.sort()).toEqual([0, 4]);
    const [counts] = await f.db.execute<{ rolled: number; raw: number }>(sql`
      SELECT (SELECT sum(n)::int FROM insight_hour_counts WHERE queue = 'race-a' AND type = 'claimed') AS rolled,
             (SELECT count(*)::int FROM task_events WHERE queue = 'race-a' AND type = 'claimed') AS raw`);
    expect(counts!.rolled).toBe(counts!.raw);
    expect(counts!.raw).toBe(15);
  });

  test("a second read writes no rollup: the hours' rows stay as the first read left them", async () => {
    const clock = new ManualClock(new Date(base.getTime() + 5 * HOUR + 600_000));
    const first = await readInsights(f.db, { queue: "race-b", window: "24h", clock });
    const rows = () => f.db.execute<{ hour: string; rolled_at: string }>(sql`SELECT hour, rolled_at FROM insight_hours WHERE queue = 'race-b' ORDER BY hour`);
    const before = await rows();
    expect(before).toHaveLength(23); // the whole hours from the window's start (18 h 50 min before base) to the last closed one
    const second = await readInsights(f.db, { queue: "race-b", window: "24h", clock });
    expect(await rows()).toEqual(before);
    expect(second.overview).toEqual(first.overview);
  });

  test("an event written late into a rolled-up hour is not seen by the rollup (the raw read sees it) until the queue's rollups are forgotten", async () => {
    const clock = new ManualClock(new Date(base.getTime() + 5 * HOUR + 600_000));
    const rolled = () => readInsights(f.db, { queue: "race-b", window: "24h", clock });
    const before = await rolled();
    // Backdated into the hour [base + 1 h, base + 2 h), already rolled up by the test above.
    await writeLog(f.db, names, new Date(base.getTime() + HOUR + 60_000), [{ queue: 1, startMs: 0, steps: [{ type: 0, gapMs: 5_000, sameTx: false, actor: 3, lapsedOwner: -1 }] }], null);
    const after = await rolled();
    const exact = await readInsights(f.db, { queue: "race-b", window: "24h", clock, rollups: false });
    const claims = (i: Insights) => i.selected!.claimants.reduce((n, c) => n + c.claims, 0);
    expect(claims(after)).toBe(claims(before));
    expect(claims(exact)).toBe(claims(before) + 1);
    // What a writer of backdated history does afterwards: the next reader rolls the queue up again.
    await forgetRollups(f.db, "race-b");
    expect(claims(await rolled())).toBe(claims(before) + 1);
  });
});
