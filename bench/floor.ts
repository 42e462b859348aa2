/**
 * `npx tsx bench/floor.ts [tasks] [reps]`: how fast and how cheap in WAL the agent loop could be
 * with the lease state moved off the task row (issue 21's design `q`) — measured, before the
 * engine is rebuilt around it. NOT the engine: a hand-written loop in pgbench over a scratch
 * schema that keeps only what docs/design.md promises on the write path — a conditional write that
 * claims, a lease, a completion only its owner can make, three events a task (claimed,
 * started, completed) with the indexes the live feed reads, and a NOTIFY in the data
 * transaction. Each variant runs alternately with pg-boss (16 workers, the same tasks) on one
 * server, and with the engine's own SQL replayed by pgbench (the `loop` of bench/pgbench.ts),
 * so every figure is a ratio from this run. docs/performance.md has the results and what they
 * say about the goals.
 *
 * Variants:
 * - floor: a primary-key-only state row (status, owner, lease, version, attempt; its updates
 *   HOT), the claimable set and the held set as tables of their own (delete on claim; insert
 *   on claim, delete on completion), the event log with (task_id, id), (tx_id, id) and
 *   (queue, tx_id, id).
 * - floor-board: the same with the board's reads by status kept as indexes on the state row
 *   ((status, priority, created_at, id) and (queue, status, id), as on today's task row): its
 *   updates are no longer HOT.
 * - floor-no-events: floor without the event log (the NOTIFY kept): what the log costs.
 */
import postgres from "postgres";
import { ensureBaselines, runBaseline } from "./baselines";
import { captureCycle } from "./lib/capture";
import { FLOOR_AGENT, FLOOR_VARIANTS, floorScript, seedFloor, type FloorVariant } from "./lib/floor-loop";
import { startBenchServer, type BenchServer } from "./lib/pg";
import { paired, ratioRow, table, type Row } from "./lib/report";
import { seedQueued } from "./lib/seed";
import { ensurePgbench, runPgbench, runPgbenchScript } from "./pgbench";
import { lsn, pgbossWal, walBetween, walRows, withoutAutovacuum } from "./wal";

const CLIENTS = 16;

/** A drain by pgbench, checked afterwards: as many tasks done, held and events written as the loop makes. */
async function drain(bin: string, url: string, variant: FloorVariant, tasks: number, onWindow?: (edge: "open" | "close") => Promise<void>): Promise<number> {
  const perClient = Math.ceil(tasks / CLIENTS);
  await onWindow?.("open");
  const tps = await runPgbenchScript(bin, url, floorScript(variant), { id: "0", ver: "0", agent: FLOOR_AGENT }, CLIENTS, perClient);
  await onWindow?.("close");
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ done: number; held: number; events: number }[]>`
      SELECT (SELECT count(*)::int FROM q_state WHERE status = 'done') AS done,
             (SELECT count(*)::int FROM q_held) AS held,
             (SELECT count(*)::int FROM q_events) AS events`;
    const events = variant === "floor-no-events" ? 0 : CLIENTS * 2 + perClient * CLIENTS * 3;
    if (row!.done !== perClient * CLIENTS || row!.held !== CLIENTS || row!.events !== events) {
      throw new Error(`${variant}: ${row!.done} done, ${row!.held} held, ${row!.events} events; expected ${perClient * CLIENTS}, ${CLIENTS}, ${events}`);
    }
  } finally {
    await sql.end();
  }
  return tps;
}

async function main() {
  const tasks = Number(process.argv[2] ?? 1500);
  const reps = Number(process.argv[3] ?? 3);
  const server: BenchServer = await startBenchServer();
  console.log(`database: ${server.description}; ${tasks} tasks, ${CLIENTS} clients, ${reps} repetitions`);
  const bin = ensurePgbench();
  const baselines = ensureBaselines();
  if (!baselines) throw new Error("baselines unavailable (npm install into bench/.baselines failed)");
  let seq = 0;
  const scratch = async <T>(fn: (url: string) => Promise<T>, migrated = false): Promise<T> => {
    const name = `bench_floor_${++seq}`;
    try {
      return await fn(migrated ? await server.fresh(name) : await server.empty(name));
    } finally {
      await server.drop(name);
    }
  };
  const rows: Row[] = [];
  try {
    const cycle = await scratch((url) => captureCycle(url), true);
    const perClient = Math.ceil(tasks / CLIENTS);
    const slack = perClient * CLIENTS + CLIENTS * 2;
    const floor = (variant: FloorVariant) => scratch(async (url) => (await seedFloor(url, variant, slack), drain(bin, url, variant, tasks)));
    const pgboss = () => scratch((url) => runBaseline(baselines, "pgboss", url, CLIENTS, tasks));
    const engineSql = () => scratch(async (url) => {
      await seedQueued(url, slack);
      return runPgbench(bin, url, cycle, "loop", CLIENTS, perClient);
    }, true);
    for (const variant of FLOOR_VARIANTS) {
      rows.push(ratioRow(`${variant}-vs-pgboss`, `pgbench tasks/s (${variant}) ÷ pg-boss jobs/s, ${CLIENTS} clients`, await paired(reps, () => floor(variant), pgboss)));
    }
    rows.push(ratioRow("floor-vs-engine-sql", "pgbench tasks/s: floor ÷ the engine's own loop SQL", await paired(reps, () => floor("floor"), engineSql)));

    await withoutAutovacuum(server.admin, async () => {
      const walOf = (variant: FloorVariant) => scratch(async (url) => {
        await seedFloor(url, variant, slack);
        let from = "";
        let to = "";
        await drain(bin, url, variant, tasks, async (edge) => {
          if (edge === "open") {
            await server.admin`CHECKPOINT`;
            from = await lsn(server.admin);
          } else to = await lsn(server.admin);
        });
        return walBetween(server.admin, from, to, perClient * CLIENTS);
      });
      const boss = () => scratch((url) => pgbossWal(server.admin, baselines, url, CLIENTS, tasks));
      for (const variant of FLOOR_VARIANTS) {
        // walRows alternates the two and names its rows for the engine's loop: renamed for the variant.
        const [bytes, records] = await walRows(reps, () => walOf(variant), boss, `${variant}, ${CLIENTS} clients, ${tasks} tasks`);
        rows.push({ ...bytes!, name: `${variant}-wal-bytes` }, { ...records!, name: `${variant}-wal-records` });
      }
    });
  } finally {
    await server.stop();
  }
  console.log(`\n${table(rows)}\n`);
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error);
  process.exit(1);
});
