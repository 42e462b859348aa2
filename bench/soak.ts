/**
 * The churn soak, opt-in (docs/engine.md "Churn and autovacuum"; docs/performance.md):
 *   npm run soak -- [--tasks 1000000] [--workers 16] [--steady-minutes 30] [--backlog 10000] [--steady-rate N] [--naptime S]
 * `--tasks` tasks through the agent loop, then the steady minutes; prints every loop table's and
 * index's size after the first 10 % and at the end, its growth, task_state's HOT ratio and each
 * table's autovacuum runs, and exits non-zero when a growth passes 2×. The full soak takes 1–2
 * hours on 2 cores (the loop runs ~650 tasks a second unloaded): run it on a machine of its own.
 * Starts the bench's own embedded PostgreSQL (bench/lib/pg.ts), or uses BENCH_DATABASE_URL's server.
 */
import { churnRow, churnSoak, type ChurnOptions } from "./churn";
import { startBenchServer } from "./lib/pg";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const log = (s: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${s}`);
const kib = (b: number) => `${(b / 1024).toFixed(0)} KiB`;

async function main() {
  const opts: ChurnOptions = {
    tasks: arg("tasks", 1_000_000), workers: arg("workers", 16), steadyMinutes: arg("steady-minutes", 30),
    backlog: arg("backlog", 10_000), ...(process.argv.includes("--naptime") ? { naptimeSeconds: arg("naptime", 60) } : {}), ...(process.argv.includes("--steady-rate") ? { steadyRate: arg("steady-rate", 0) } : {}), log,
  };
  const server = await startBenchServer();
  log(`database: ${server.description}`);
  try {
    const url = await server.fresh(`bench_soak_${process.pid}`);
    const r = await churnSoak(url, opts);
    console.log(`\n| relation | of | kind | after ${r.baseline.tasks} tasks | at the end (${r.end.tasks} tasks) | growth |\n|---|---|---|---|---|---|`);
    for (const g of r.growth) console.log(`| ${g.name} | ${g.table} | ${g.kind} | ${kib(g.baseline)} | ${kib(g.end)} | ${g.factor.toFixed(2)} |`);
    console.log(`\nevent log: ${r.logBytesPerEvent.toFixed(0)} B an event (${r.end.events} events; append-only, not counted as growth)`);
    console.log(`task_state HOT ratio: ${r.hot === null ? "n/a" : `${(r.hot * 100).toFixed(1)} %`} of its updates`);
    console.log(`\n| table | updates | HOT | dead rows | live rows | autovacuum runs |\n|---|---|---|---|---|---|`);
    for (const s of r.stats) console.log(`| ${s.relname} | ${s.n_tup_upd} | ${s.n_tup_hot_upd} | ${s.n_dead_tup} | ${s.n_live_tup} | ${s.autovacuum_count} |`);
    const row = churnRow("churn-bloat", opts, r);
    console.log(`\nlargest growth: ${row.note}`);
    if (!row.met) process.exitCode = 1;
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
