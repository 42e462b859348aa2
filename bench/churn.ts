import postgres from "postgres";
import { connectDatabase } from "@/db/client";
import { perform } from "@/lib/tasks/core/engine";
import { claimNext } from "@/lib/tasks/claiming/claim-next";
import { completeAndClaimNext } from "@/lib/tasks/holding/complete";
import { createActor } from "@/lib/tasks/core/actors";
import type { Task } from "@/lib/tasks/core/types";
import { growthFactors, hotRatio, logBytesPerEvent, sampleSizes, tableStats, type Growth, type Sample, type TableStats } from "./churn-sizes";
import { insertTasks } from "./lib/seed";
import type { Row } from "./lib/report";

/**
 * Churn without bloat: `tasks` tasks through the agent loop (claim-next with start, then
 * complete with next) at `workers` workers, a producer keeping `backlog` tasks queued, then
 * `steadyMinutes` of steady load (the producer making tasks at `steadyRate` a second, half the
 * first phase's throughput unless given, the workers taking them as they come). Sizes are
 * sampled after the first `baselineShare` of the tasks and at the end (bench/churn-sizes.ts says
 * how each kind of table's growth is counted). Autovacuum runs as the server is configured, with
 * the tables' own settings: that is what is measured. The soak's script: bench/soak.ts.
 */
export interface ChurnOptions {
  tasks: number; workers: number; steadyMinutes: number;
  backlog?: number; baselineShare?: number; steadyRate?: number;
  /**
   * autovacuum_naptime for the soak's length (ALTER SYSTEM, reset after; the server's own when
   * absent). A soak scaled down N× from the million runs N× fewer tasks between two autovacuum
   * rounds only if the rounds come N× as often: the quick forms scale the naptime with the size.
   */
  naptimeSeconds?: number;
  /** Run with autovacuum off (the harness' own test, on a server that keeps it off): the sizes mean nothing then. */
  allowAutovacuumOff?: boolean;
  log?: (line: string) => void;
}

export interface ChurnResult {
  baseline: Sample; end: Sample; growth: Growth[];
  /** HOT updates ÷ updates of task_state over the whole soak. */
  hot: number | null;
  stats: TableStats[];
  /** Loop tasks a second in the first phase. */
  rate: number;
  logBytesPerEvent: number;
  done: number;
}

const BATCH = 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function churnSoak(url: string, opts: ChurnOptions): Promise<ChurnResult> {
  const log = opts.log ?? (() => {});
  const backlog = opts.backlog ?? Math.min(10_000, opts.tasks);
  const baselineAt = Math.round(opts.tasks * (opts.baselineShare ?? 0.1));
  const admin = postgres(url, { max: 2, onnotice: () => {} });
  const { db, client } = connectDatabase(url, { max: opts.workers, applicationName: "bench-churn" });
  let made = 0;
  let done = 0;
  let stop = false;
  const make = async (n: number) => {
    await admin.unsafe(insertTasks(`INSERT INTO task_state (queue) SELECT 'default' FROM generate_series(1, $1::int)`, `'churn ' || made.id`), [n]);
    made += n;
  };
  try {
    const [{ autovacuum }] = await admin<[{ autovacuum: string }]>`SHOW autovacuum`;
    if (autovacuum !== "on" && !opts.allowAutovacuumOff) throw new Error("autovacuum is off on this server: the soak measures what autovacuum keeps");
    if (opts.naptimeSeconds) {
      await admin.unsafe(`ALTER SYSTEM SET autovacuum_naptime = ${Math.max(1, Math.round(opts.naptimeSeconds))}`);
      await admin`SELECT pg_reload_conf()`;
    }
    const statsBefore = await tableStats(admin);
    const actor = await createActor(db, "agent", "bench-churn");
    await make(Math.min(backlog, opts.tasks));
    let phase: "soak" | "steady" = "soak";
    let rate = 0;
    let steadyRate = 0;
    let owed = 0;
    // The producer: in the first phase the backlog refilled up to `tasks`; in the steady one,
    // `steadyRate` a second, a tick every 100 ms.
    const producer = (async () => {
      while (!stop) {
        if (phase === "soak") {
          const want = Math.min(opts.tasks - made, backlog - (made - done));
          // Refilled in steps of up to BATCH (one statement each: the set's trigger runs once a statement).
          const step = Math.min(BATCH, Math.ceil(backlog / 2), opts.tasks - made);
          if (want > 0 && want >= step) await make(want);
          else await sleep(20);
        } else {
          const n = Math.floor(owed);
          if (n > 0) {
            owed -= n;
            await make(n);
          }
          await sleep(100);
          owed += steadyRate / 10;
        }
      }
    })();
    const must = <T>(what: string, r: { ok: true; value: T } | { ok: false; error: { message: string } }): T => {
      if (!r.ok) throw new Error(`${what}: ${r.error.message}`);
      return r.value;
    };
    const worker = async () => {
      while (!stop) {
        let task: Task | null = must("claimNext", await perform(claimNext, { start: true }, { db, actor }));
        if (!task) { await sleep(20); continue; }
        while (task) {
          // Once stopping, the last completion claims nothing, so no task is left held.
          const input = { taskId: task.id, version: task.version, ...(stop ? {} : { next: { start: true } }) };
          const answer: { next?: Task | null } = must("complete", await perform(completeAndClaimNext, input, { db, actor }));
          done++;
          task = answer.next ?? null;
        }
      }
    };
    const workers = Array.from({ length: opts.workers }, worker);
    const started = performance.now();
    let baseline: Sample | null = null;
    while (done < opts.tasks) {
      await sleep(50);
      if (!baseline && done >= baselineAt) {
        baseline = await sampleSizes(admin);
        log(`baseline after ${done} tasks: ${baseline.tasks} tasks, ${baseline.events} events`);
      }
    }
    rate = done / ((performance.now() - started) / 1000);
    log(`${done} tasks in ${((performance.now() - started) / 1000).toFixed(0)} s (${rate.toFixed(0)}/s)`);
    steadyRate = opts.steadyRate ?? rate / 2;
    phase = "steady";
    const steadyEnd = performance.now() + opts.steadyMinutes * 60_000;
    while (performance.now() < steadyEnd) await sleep(1000);
    stop = true;
    await Promise.all([producer, ...workers]);
    // Close the pool first: a backend flushes its statistics as it exits, before it leaves pg_stat_activity.
    await client.end();
    for (let i = 0; i < 100; i++) {
      const [{ n }] = await admin<[{ n: number }]>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'bench-churn'`;
      if (n === 0) break;
      await sleep(50);
    }
    const end = await sampleSizes(admin);
    const stats = await tableStats(admin);
    const growth = growthFactors(baseline ?? end, end);
    return { baseline: baseline ?? end, end, growth, hot: hotRatio(statsBefore, stats), stats, rate, logBytesPerEvent: logBytesPerEvent(end), done };
  } finally {
    stop = true;
    await client.end().catch(() => {});
    if (opts.naptimeSeconds) {
      await admin`ALTER SYSTEM RESET autovacuum_naptime`;
      await admin`SELECT pg_reload_conf()`;
    }
    await admin.end();
  }
}

/** The bench's row: the largest growth factor of a loop table or index (goal ≤ 2.0). */
export function churnRow(name: string, opts: ChurnOptions, r: ChurnResult): Row {
  const top = r.growth[0]!;
  return {
    name,
    metric: `largest growth of a loop table or index (bytes a row for per-task tables), ${r.done.toLocaleString("en")} tasks at ${opts.workers} workers then ${opts.steadyMinutes} min steady ÷ after the first ${Math.round((opts.baselineShare ?? 0.1) * 100)} %`,
    value: top.end,
    baseline: top.baseline,
    ratio: top.factor,
    goal: "<= 2",
    met: top.factor <= 2,
    note: `${top.name} ${top.factor.toFixed(2)}×; task_state HOT ${r.hot === null ? "n/a" : `${(r.hot * 100).toFixed(1)} %`}; ${r.rate.toFixed(0)} tasks/s; log ${r.logBytesPerEvent.toFixed(0)} B an event`,
  };
}
