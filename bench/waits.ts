/**
 * `npx tsx bench/waits.ts [--clients N] [--tasks N] [--floor]`: where the agent loop's backends
 * spend their time. pgbench replays the engine's own loop (or bench/floor.ts's, with --floor)
 * while a separate connection samples `pg_stat_activity` every 5 ms: each backend's wait event
 * (or "CPU" when it has none) and the start of its statement. It prints the share of samples
 * per (wait, statement) and the drain's tasks/s. CHANGELOG.md ("Issue 21, eighth
 * step") has what it showed: most of the time in line for NOTIFY's commit lock.
 */
import postgres from "postgres";
import { captureCycle } from "./lib/capture";
import { FLOOR_AGENT, floorScript, seedFloor } from "./lib/floor-loop";
import { startBenchServer } from "./lib/pg";
import { seedQueued } from "./lib/seed";
import { ensurePgbench, runPgbench, runPgbenchScript } from "./pgbench";

function options(argv: string[]) {
  const value = (flag: string, fallback: number) => {
    const i = argv.indexOf(flag);
    if (i < 0) return fallback;
    const n = Number(argv[i + 1]);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} wants a whole number ≥ 1, got ${argv[i + 1]}`);
    return n;
  };
  return { clients: value("--clients", 16), tasks: value("--tasks", 4800), floor: argv.includes("--floor") };
}

/** Samples every pgbench backend of `database` until stopped: counts per "wait  statement". */
function sampleWaits(url: string, database: string) {
  const counts = new Map<string, number>();
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  let running = true;
  const done = (async () => {
    while (running) {
      const rows = await sql<{ key: string }[]>`
        SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') || '  '
               || CASE WHEN wait_event_type = 'Client' THEN '' ELSE left(regexp_replace(query, '\\s+', ' ', 'g'), 40) END AS key
        FROM pg_stat_activity
        WHERE datname = ${database} AND application_name = 'pgbench' AND pid <> pg_backend_pid()`;
      for (const { key } of rows) counts.set(key, (counts.get(key) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await sql.end();
  })();
  return async () => {
    running = false;
    await done;
    return counts;
  };
}

async function main() {
  const o = options(process.argv.slice(2));
  const server = await startBenchServer();
  try {
    const bin = ensurePgbench();
    const perClient = Math.ceil(o.tasks / o.clients);
    const slack = perClient * o.clients + o.clients * 2;
    const name = "bench_waits";
    let drain: () => Promise<number>;
    if (o.floor) {
      const url = await server.empty(name);
      await seedFloor(url, "floor", slack);
      drain = () => runPgbenchScript(bin, url, floorScript("floor"), { id: "0", ver: "0", agent: FLOOR_AGENT }, o.clients, perClient);
    } else {
      const cycle = await captureCycle(await server.fresh("bench_waits_capture"));
      const url = await server.fresh(name);
      await seedQueued(url, slack);
      drain = () => runPgbench(bin, url, cycle, "loop", o.clients, perClient);
    }
    const stop = sampleWaits(server.urlFor("postgres"), name);
    const tps = await drain();
    const counts = await stop();
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    console.log(`\n${o.floor ? "the floor's loop" : "the engine's loop SQL"}, ${o.clients} clients, ${perClient * o.clients} tasks: ${tps.toFixed(0)} tasks/s; ${total} samples\n`);
    for (const [key, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 20)) {
      console.log(`${((100 * n) / total).toFixed(1).padStart(5)} %  ${key}`);
    }
  } finally {
    await server.stop();
  }
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
