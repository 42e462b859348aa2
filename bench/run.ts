/**
 * `npm run bench` (full, ~23 min on 2 cores) and `npm run bench -- --quick` (reduced sizes, < 5 min);
 * `-- --only claim-p50-graph-1m-vs-1k,unblock-1000` runs just those sections (names as in the table):
 * Claimboard beside its baselines (pgbench of the engine's own SQL, pg-boss, graphile-worker)
 * on one PostgreSQL in one run. Every row is a ratio of two figures measured alternately in
 * this run, since absolute figures drift on a shared machine. Prints a table and writes
 * bench/results/latest.json. See docs/performance.md.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { ensureBaselines, runBaseline, type BaselineMode, type Baselines } from "./baselines";
import { boardMedian, sessionCookie } from "./board";
import { cpuRows } from "./cpu-rows";
import { httpRows } from "./http-rows";
import { claimScale, graphClaimScale, reservedClaimScale, unblockFanout } from "./claim-rows";
import { engineDrain } from "./engine-drain";
import { churnBenchRow, churnSizes } from "./churn-rows";
import { serverPoolOptions } from "@/db/client";
import { agentTokens } from "./http-cycle";
import { insightsRow } from "./insights";
import { captureCycle, type CapturedCycle } from "./lib/capture";
import { startBenchServer, type BenchServer } from "./lib/pg";
import { paired, ratioRow, table, writeResults, type Row } from "./lib/report";
import { eventLogBytes, seedMixed, seedQueued } from "./lib/seed";
import { startNext, type BenchServerProcess } from "./lib/server";
import { ensurePgbench, runPgbench, type Variant } from "./pgbench";
import { poolerRows } from "./pooler";
import { PGBOUNCER } from "@/test/pgbouncer";
import { searchMedian, seedSearchable } from "./search";
import { sseBurst } from "./sse";
import { limitsRow } from "./limits";
import { idleLoadRows, lapseRow, wakeRows, type WaitingSizes } from "./waiting-rows";
import { engineWal, pgbossWal, walRows, withoutAutovacuum } from "./wal";

const quick = process.argv.includes("--quick");
const onlyArg = process.argv.find((a, i, all) => all[i - 1] === "--only");
const only = onlyArg ? new Set(onlyArg.split(",")) : null;
const SIZES = quick
  ? { jobs: 600, jobsOneWorker: 200, reps: 3, repsSide: 2, httpCycles: 250, httpReps: 2, bigClaim: 100_000, claims: 150, claimReps: 3, insightsTasks: 25_000, subscribers: 1000, sseEvents: 300, boardBig: 100_000, boardRequests: 8, boardReps: 3, limitLookups: 100 }
  : { jobs: 1500, jobsOneWorker: 400, reps: 5, repsSide: 3, httpCycles: 600, httpReps: 3, bigClaim: 1_000_000, claims: 300, claimReps: 5, insightsTasks: 100_000, subscribers: 1000, sseEvents: 1000, boardBig: 100_000, boardRequests: 15, boardReps: 5, limitLookups: 300 };

/** Issue 49's waiting rows (bench/waiting-rows.ts): ~2 min together in the quick run. */
const WAITING: WaitingSizes = quick
  ? { wakeTries: 10, pollTries: 6, lapseRounds: 2, lapsePerRound: 3, idleAgents: 200, idleWindowMs: 5000, idleReps: 1 }
  : { wakeTries: 40, pollTries: 15, lapseRounds: 4, lapsePerRound: 5, idleAgents: 200, idleWindowMs: 20_000, idleReps: 3 };

const rows: Row[] = [];
const log = (s: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${s}`);
let seq = 0;
const db = (s: BenchServer, kind: string) => s.fresh(`bench_${kind}_${++seq}`);

/** What a section throws when the machine lacks what it needs: the row says why, the run still succeeds. */
class Skip extends Error {}

/** A row that failed is reported as failed; the others still run. */
async function section(name: string, fn: () => Promise<void>) {
  if (only && !only.has(name)) return;
  log(`— ${name}`);
  try {
    await fn();
  } catch (error) {
    if (error instanceof Skip) {
      log(`  skipped: ${error.message}`);
      rows.push({ name, metric: "skipped", value: NaN, baseline: null, ratio: null, note: error.message });
      return;
    }
    console.error(error);
    rows.push({ name, metric: "failed", value: NaN, baseline: null, ratio: null, note: String((error as Error).message).slice(0, 300) });
  }
}

async function main() {
  const started = performance.now();
  const server = await startBenchServer();
  log(`database: ${server.description}`);
  // pgbench, the baselines and the captured cycle serve only the queue rows: --only without them skips their setup.
  const queues = !only || [...only].some((name) => QUEUE_ROWS.includes(name));
  const pgbench = queues ? ensurePgbench() : "";
  const baselines = queues ? ensureBaselines() : null;
  if (baselines) log(`baselines: ${baselines.versions} on Node ${baselines.nodeVersion} (${path.relative(process.cwd(), baselines.node)}); Claimboard on Node ${process.version}`);
  let cycle: CapturedCycle | null = null;
  try {
    if (queues) {
      cycle = await captureCycle(await db(server, "capture"));
      await queueRows(server, pgbench, cycle, baselines);
    }
    await section("engine-pgbouncer-vs-direct", async () => {
      rows.push(...(await poolerRows(server, SIZES.repsSide, SIZES.jobs, () => db(server, "pooler"))));
      if (!PGBOUNCER) throw new Skip("pgbouncer is not installed (apt-get install pgbouncer)");
    });
    const claims = { server, db, sizes: SIZES, quick, log, rows };
    await section("claim-p50-1m-vs-1k", () => claimScale(claims));
    await section("claim-p50-graph-1m-vs-1k", () => graphClaimScale(claims));
    await section("claim-p50-reserved-1m-vs-1k", () => reservedClaimScale(claims));
    await section("unblock-1000", () => unblockFanout(claims));
    await section("limits-cost", async () => {
      rows.push(await limitsRow(await db(server, "limits"), 16, SIZES.limitLookups, SIZES.reps));
    });
    await section("loop-effect-vs-none", async () => {
      // The agent loop (complete + claim next, 16 workers) with one effect a task — recorded,
      // then resolved applied — against the same loop without effects, alternately in this run.
      const loop = async (effects: boolean) => {
        const url = await db(server, effects ? "effects" : "no_effects");
        await seedQueued(url, SIZES.jobs);
        const rate = await engineDrain(url, { workers: 16, total: SIZES.jobs, effects });
        await server.drop(url.split("/").at(-1)!);
        return rate;
      };
      const p = await paired(SIZES.reps, () => loop(true), () => loop(false));
      rows.push(ratioRow("loop-effect-vs-none", "tasks/s with one effect a task (intent + applied: 2 more transactions) ÷ tasks/s without, 16 workers", p));
      log(`  with an effect ${p.a.median.toFixed(0)}/s, without ${p.b.median.toFixed(0)}/s`);
    });
    await section("insights-30d-1m", async () => {
      const url = await db(server, "insights");
      rows.push(await insightsRow(url, SIZES.insightsTasks, SIZES.claimReps, quick));
      await server.drop(url.split("/").at(-1)!);
    });
    // Churn without bloat (bench/churn-rows.ts): the quick or full form; churn-bloat-1m only when named.
    for (const size of churnSizes(quick, only)) await section(size.name, async () => void rows.push(await churnBenchRow(server, size, log)));
    if (!only || [...only].some((name) => SERVER_ROWS.includes(name))) await serverRows(server);
    if (!only || [...only].some((name) => WAITING_ROWS.includes(name))) await waitingRows(server);
  } finally {
    await server.stop();
  }
  const meta = {
    mode: quick ? "quick" : "full",
    at: new Date().toISOString(),
    seconds: Math.round((performance.now() - started) / 1000),
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.release()}`,
    loadAverage: os.loadavg().map((l) => l.toFixed(2)).join(" "),
    database: server.description,
    node: process.version,
    baselines: baselines ? `${baselines.versions} on Node ${baselines.nodeVersion}` : "unavailable",
  };
  const file = path.join(path.dirname(new URL(import.meta.url).pathname), "results/latest.json");
  writeResults(file, meta, rows);
  console.log(`\n${table(rows)}\n`);
  console.log(`${meta.mode} run: ${meta.seconds} s; load average at the end ${meta.loadAverage}; written to ${path.relative(process.cwd(), file)}`);
}

/** The sections queueRows runs (names as in the table). */
const QUEUE_ROWS = ["engine-vs-pgboss", "cpu-per-task-vs-pgboss", "wal-per-task-vs-pgboss", "engine-vs-raw-sql", "batch-vs-graphile"];

async function queueRows(server: BenchServer, pgbench: string, cycle: CapturedCycle, baselines: Baselines | null) {
  const engine = async (workers: number, jobs: number, batch?: number, pool?: number) => {
    const url = await db(server, "engine");
    await seedQueued(url, jobs);
    const rate = await engineDrain(url, { workers, total: jobs, batch, pool });
    await server.drop(url.split("/").at(-1)!);
    return rate;
  };
  const baseline = async (mode: BaselineMode, workers: number, jobs: number) => {
    if (!baselines) throw new Error("baselines unavailable (npm install into bench/.baselines failed)");
    const name = `bench_${mode.replace("-", "_")}_${++seq}`;
    const rate = await runBaseline(baselines, mode, await server.empty(name), workers, jobs);
    await server.drop(name);
    return rate;
  };
  const raw = async (variant: Variant, clients: number, jobs: number, mode: "prepared" | "extended" = "prepared") => {
    const url = await db(server, "pgbench");
    const perClient = Math.ceil(jobs / clients);
    await seedQueued(url, perClient * clients + clients * 2); // slack: a claim never comes back empty
    const rate = await runPgbench(pgbench, url, cycle, variant, clients, perClient, mode);
    await server.drop(url.split("/").at(-1)!);
    return rate;
  };

  await section("engine-vs-pgboss", async () => {
    for (const workers of [16, 1, 4, 64]) {
      const jobs = workers === 1 ? SIZES.jobsOneWorker : SIZES.jobs;
      const p = await paired(workers === 16 ? SIZES.reps : SIZES.repsSide, () => engine(workers, jobs), () => baseline("pgboss", workers, jobs));
      rows.push(ratioRow(workers === 16 ? "engine-vs-pgboss" : `engine-vs-pgboss@${workers}`, `cycles/s ÷ jobs/s, ${workers} workers`, p,
        workers === 16 ? { op: ">=", target: 1.0 } : undefined));
      log(`  ${workers} workers: engine ${p.a.median.toFixed(0)}/s, pg-boss ${p.b.median.toFixed(0)}/s`);
    }
    // The engine on the server's pool, as above, ÷ the same with a connection per worker (how
    // these rows ran before the eighth step): every loop transaction NOTIFYs, and PostgreSQL
    // commits one notifying transaction at a time, so more connections queue longer there.
    const pool = await paired(SIZES.repsSide, () => engine(64, SIZES.jobs), () => engine(64, SIZES.jobs, undefined, 64));
    rows.push(ratioRow("server-pool-vs-pool-per-worker@64", `tasks/s on the server's pool (${serverPoolOptions().max}) ÷ on 64 connections, 64 workers`, pool));
  });
  await section("cpu-per-task-vs-pgboss", async () => {
    if (!baselines) throw new Error("baselines unavailable (npm install into bench/.baselines failed)");
    const cpu = await cpuRows(server, baselines, SIZES.repsSide, SIZES.jobs, (kind) => `bench_${kind}_${++seq}`);
    if (!cpu) throw new Skip("the database server's processes are not on this machine, so its CPU cannot be read from /proc");
    rows.push(...cpu);
    log(`  ${cpu[0]!.note}`);
  });
  await section("wal-per-task-vs-pgboss", async () => {
    if (!baselines) throw new Error("baselines unavailable (npm install into bench/.baselines failed)");
    const fresh = async <T>(kind: string, make: (name: string) => Promise<string>, fn: (url: string) => Promise<T>) => {
      const name = `bench_${kind}_${++seq}`;
      try {
        return await fn(await make(name));
      } finally {
        await server.drop(name);
      }
    };
    rows.push(...(await withoutAutovacuum(server.admin, () => walRows(SIZES.repsSide,
      () => fresh("wal_engine", (n) => server.fresh(n), (url) => engineWal(server.admin, url, 16, SIZES.jobs)),
      () => fresh("wal_pgboss", (n) => server.empty(n), (url) => pgbossWal(server.admin, baselines, url, 16, SIZES.jobs)),
      `16 workers, ${SIZES.jobs} tasks`))));
    log(`  engine ${rows.at(-2)!.value.toFixed(0)} B, ${rows.at(-1)!.value.toFixed(1)} records a task; pg-boss ${rows.at(-2)!.baseline!.toFixed(0)} B, ${rows.at(-1)!.baseline!.toFixed(1)}`);
  });
  await section("engine-vs-raw-sql", async () => {
    const before = { url: await db(server, "growth") };
    await seedQueued(before.url, SIZES.jobs);
    const bytes0 = await eventLogBytes(before.url);
    await engineDrain(before.url, { workers: 16, total: SIZES.jobs });
    const growth = ((await eventLogBytes(before.url)) - bytes0) / (SIZES.jobs / 1000);
    const p = await paired(SIZES.reps, () => engine(16, SIZES.jobs), () => raw("loop", 16, SIZES.jobs));
    rows.push(ratioRow("engine-vs-raw-sql", "tasks/s ÷ pgbench of the loop's own SQL tasks/s (one transaction a task), 16 clients", p, { op: ">=", target: 0.8 }));
    const n = await paired(SIZES.reps, () => raw("cycle", 16, SIZES.jobs), () => raw("cycle-no-notify", 16, SIZES.jobs));
    rows.push(ratioRow("notify-vs-no-notify", "pgbench cycles/s with pg_notify ÷ without, 16 clients", n));
    const n64 = await paired(SIZES.repsSide, () => raw("cycle", 64, SIZES.jobs), () => raw("cycle-no-notify", 64, SIZES.jobs));
    rows.push(ratioRow("notify-vs-no-notify@64", "the same, 64 clients", n64));
    // The bound of engine-vs-pgboss: the engine's own SQL with no client code at all.
    const rb = await paired(SIZES.repsSide, () => raw("loop", 16, SIZES.jobs), () => baseline("pgboss", 16, SIZES.jobs));
    rows.push(ratioRow("raw-sql-vs-pgboss", "pgbench tasks/s (the loop's SQL) ÷ pg-boss jobs/s, 16 clients", rb));
    const lc = await paired(SIZES.repsSide, () => raw("loop", 16, SIZES.jobs), () => raw("cycle", 16, SIZES.jobs));
    rows.push(ratioRow("loop-vs-v1-cycle", "pgbench: one transaction a task (complete+next) ÷ two (claim; complete), 16 clients", lc));
    const rn = await paired(SIZES.repsSide, () => raw("cycle-no-notify", 16, SIZES.jobs), () => baseline("pgboss", 16, SIZES.jobs));
    rows.push(ratioRow("raw-sql-no-notify-vs-pgboss", "the same without pg_notify", rn));
    const pu = await paired(SIZES.repsSide, () => raw("cycle", 16, SIZES.jobs), () => raw("cycle", 16, SIZES.jobs, "extended"));
    rows.push(ratioRow("prepared-vs-unnamed", "pgbench cycles/s, -M prepared ÷ -M extended (unnamed: parsed and planned each time)", pu));
    const na = await paired(SIZES.repsSide, () => raw("cycle-notify-after", 16, SIZES.jobs), () => raw("cycle", 16, SIZES.jobs));
    rows.push(ratioRow("notify-after-commit-vs-in-tx", "pgbench: NOTIFY in its own async-commit tx ÷ in the data tx (not implemented)", na));
    rows.push({ name: "event-log-growth", metric: "task_events bytes per 1,000 cycles (2 events each: claimed with started, completed)", value: growth, baseline: null, ratio: null });
  });
  await section("batch-vs-graphile", async () => {
    const p = await paired(SIZES.reps, () => engine(4, SIZES.jobs, 10), () => baseline("graphile-batch", 4, SIZES.jobs));
    rows.push(ratioRow("batch-vs-graphile", "tasks/s (batch 10 → complete) ÷ graphile local queue 10 jobs/s, 4 workers", p, { op: ">=", target: 1.0 }));
    const g = await paired(SIZES.repsSide, () => engine(4, SIZES.jobs), () => baseline("graphile", 4, SIZES.jobs));
    rows.push(ratioRow("engine-vs-graphile@4", "cycles/s ÷ graphile-worker default jobs/s, 4 workers", g));
    const b = await paired(SIZES.repsSide, () => engine(4, SIZES.jobs, 10), () => baseline("pgboss-batch", 4, SIZES.jobs));
    rows.push(ratioRow("batch-vs-pgboss-batch", "tasks/s ÷ pg-boss work() batchSize 10 jobs/s, 4 workers", b));
  });
}

/** The sections serverRows runs (it needs a production build and a Next.js server). */
const SERVER_ROWS = ["http-vs-engine", "sse-p99-1000-vs-1", "board-100k-vs-1k", "search-100k-vs-1k"];

function ensureBuild() {
  if (!fs.existsSync(".next/BUILD_ID")) {
    log("no production build: running next build (2–4 min)");
    const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
    const build = spawnSync(process.execPath, [nextBin, "build"], { stdio: "inherit", env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" } });
    if (build.status !== 0) throw new Error("next build failed");
  }
}

/** The sections waitingRows runs: waiting claims over HTTP against one `next start` (issue 49). */
const WAITING_ROWS = ["wake-p50-vs-graphile", "lapse-to-reclaim", "idle-agents-load"];

async function waitingRows(server: BenchServer) {
  ensureBuild();
  const url = await db(server, "waiting");
  const next = await startNext(url);
  try {
    await section("wake-p50-vs-graphile", async () => {
      const baselines = ensureBaselines();
      if (!baselines) throw new Error("baselines unavailable (npm install into bench/.baselines failed)");
      const made = await wakeRows(next, url, baselines, () => server.empty(`bench_wake_${++seq}`), WAITING);
      rows.push(...made);
      log(`  p50 ${made[0]!.value.toFixed(1)} ms, graphile ${made[0]!.baseline!.toFixed(1)} ms; pg-boss notify ${made[1]!.baseline!.toFixed(1)} ms, polling ${made[2]!.baseline!.toFixed(1)} ms`);
    });
    await section("lapse-to-reclaim", async () => {
      const row = await lapseRow(next, url, WAITING);
      rows.push(row);
      log(`  p50 ${row.value.toFixed(0)} ms; ${row.note}`);
    });
    await section("idle-agents-load", async () => {
      const made = await idleLoadRows(next, server.admin, url, WAITING);
      rows.push(...made);
      for (const r of made) log(`  ${r.name}: ${r.value.toFixed(1)}/s vs ${r.baseline!.toFixed(1)}/s; ${r.note}`);
    });
  } finally {
    await next.stop();
  }
}

async function serverRows(server: BenchServer) {
  ensureBuild();
  const url = await db(server, "http");
  const next = await startNext(url);
  try {
    await section("http-vs-engine", () => httpRows(next, url, server, db, SIZES, rows));
    await section("sse-p99-1000-vs-1", async () => {
      // A token per burst: the server gives the first burst's stream back to the per-token cap
      // (STREAMS_PER_TOKEN, 1,000) only when it sees that client go, which under load can be
      // after the 1,000 of the second have asked (a 429 failed the row at load 17).
      const [oneToken, manyToken] = await agentTokens(url, 2, "bench-sse");
      const one = await sseBurst(next, url, oneToken!, 1, SIZES.sseEvents);
      const many = await sseBurst(next, url, manyToken!, SIZES.subscribers, SIZES.sseEvents);
      log(`  1 subscriber p99 ${one.p99.toFixed(1)} ms; ${SIZES.subscribers} subscribers p50 ${many.p50.toFixed(1)} p99 ${many.p99.toFixed(1)} ms (${many.samples} samples)`);
      rows.push({
        name: "sse-p99-1000-vs-1", metric: `commit→delivery p99 ms, ${SIZES.subscribers} subscribers ÷ 1, burst of ${SIZES.sseEvents}`,
        value: many.p99, baseline: one.p99, ratio: many.p99 / one.p99, goal: "<= 3", met: many.p99 / one.p99 <= 3,
        note: `p50 ${many.p50.toFixed(1)} vs ${one.p50.toFixed(1)} ms; timed on 50 probe subscribers; ` +
          `burst delivered in ${(many.burstMs / 1000).toFixed(1)} s (vs ${(one.burstMs / 1000).toFixed(1)} s); server CPU ` +
          `${((many.serverCpuMs * 1000) / (SIZES.subscribers * SIZES.sseEvents)).toFixed(1)} µs per delivered message ` +
          `(${(many.serverCpuMs / 1000).toFixed(1)} s for ${SIZES.subscribers * SIZES.sseEvents} messages)`,
      });
      rows.push({
        name: "sse-burst-1000-vs-1", metric: `time to deliver a burst of ${SIZES.sseEvents} to ${SIZES.subscribers} subscribers ÷ to 1 (ms, first commit → last delivery)`,
        value: many.burstMs, baseline: one.burstMs, ratio: many.burstMs / one.burstMs,
        note: `timed on the probe subscribers (50 of ${SIZES.subscribers}); the same burst as sse-p99-1000-vs-1`,
      });
      rows.push({ name: "sse-server-rss", metric: `server RSS MiB with ${SIZES.subscribers} subscribers ÷ with 1`, value: many.rssBytes / 2 ** 20, baseline: one.rssBytes / 2 ** 20, ratio: many.rssBytes / one.rssBytes });
    });
  } finally {
    await next.stop();
  }
  // The board and the search at 100k vs 1k tasks share their two seeded databases and servers.
  const scale: { started: Promise<{ a: BenchServerProcess; b: BenchServerProcess; ca: string; cb: string }> | null } = { started: null };
  const scaleServers = () =>
    (scale.started ??= (async () => {
      const small = await db(server, "board_1k");
      const big = await db(server, "board_big");
      await seedMixed(small, 1000);
      await seedMixed(big, SIZES.boardBig);
      await seedSearchable(small);
      await seedSearchable(big);
      const [a, b] = [await startNext(big), await startNext(small)];
      return { a, b, ca: await sessionCookie(big, "big@bench.test"), cb: await sessionCookie(small, "small@bench.test") };
    })());
  try {
    // GET / renders every column's first page and the live counts (capped: lib/tasks/queues/counts.ts).
    await section("board-100k-vs-1k", async () => {
      const { a, b, ca, cb } = await scaleServers();
      await boardMedian(a, ca, 3); // warm both servers' routes
      await boardMedian(b, cb, 3);
      const p = await paired(SIZES.boardReps, () => boardMedian(a, ca, SIZES.boardRequests), () => boardMedian(b, cb, SIZES.boardRequests));
      rows.push(ratioRow("board-100k-vs-1k", "board page (GET /, counts on) median ms, 100k tasks ÷ 1k", p, { op: "<=", target: 1.5 }));
    });
    await section("search-100k-vs-1k", async () => {
      const { a, b, ca, cb } = await scaleServers();
      await searchMedian(a, ca, 4);
      await searchMedian(b, cb, 4);
      const p = await paired(SIZES.boardReps, () => searchMedian(a, ca, SIZES.boardRequests * 2), () => searchMedian(b, cb, SIZES.boardRequests * 2));
      rows.push(ratioRow("search-100k-vs-1k", "GET /tasks?q= (full-text, last word a prefix, sort=updated) median ms, 100k tasks ÷ 1k", p, { op: "<=", target: 1.5 }));
    });
  } finally {
    if (scale.started) {
      const { a, b } = await scale.started.catch(() => ({ a: null, b: null }));
      await a?.stop();
      await b?.stop();
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
