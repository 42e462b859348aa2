/**
 * `npx tsx bench/floor.ts [tasks] [reps]`: how fast and how cheap in WAL the agent loop could be
 * with the lease state moved off the task row (issue 21's design `q`) — measured, before the
 * engine is rebuilt around it. NOT the engine: a hand-written loop in pgbench over a scratch
 * schema that keeps only what DESIGN.md promises on the write path — a conditional write that
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
import { startBenchServer, type BenchServer } from "./lib/pg";
import { paired, ratioRow, table, type Row } from "./lib/report";
import { seedQueued } from "./lib/seed";
import { ensurePgbench, runPgbench, runPgbenchScript } from "./pgbench";
import { lsn, pgbossWal, walBetween, walRows, withoutAutovacuum } from "./wal";

const VARIANTS = ["floor", "floor-board", "floor-no-events"] as const;
type Variant = (typeof VARIANTS)[number];
const CLIENTS = 16;
const AGENT = "22222222-2222-4222-8222-222222222222";

function schema(variant: Variant): string {
  const board = variant === "floor-board";
  return `
    CREATE TABLE q_tasks (id bigint PRIMARY KEY, queue text NOT NULL, title text NOT NULL,
      priority int NOT NULL DEFAULT 0, created_at timestamptz NOT NULL DEFAULT now());
    CREATE TABLE q_state (task_id bigint PRIMARY KEY, queue text NOT NULL, status text NOT NULL,
      owner_id uuid, lease_until timestamptz, version int NOT NULL DEFAULT 1, attempt int NOT NULL DEFAULT 0,
      ${board ? "priority int NOT NULL DEFAULT 0, created_at timestamptz NOT NULL DEFAULT now()," : ""}
      updated_at timestamptz NOT NULL DEFAULT now()) WITH (fillfactor = 70);
    ${board ? `CREATE INDEX q_state_status_order ON q_state (status, priority DESC, created_at, task_id);
               CREATE INDEX q_state_queue_status ON q_state (queue, status, task_id);` : ""}
    CREATE TABLE q_ready (task_id bigint PRIMARY KEY, queue text NOT NULL, priority int NOT NULL, created_at timestamptz NOT NULL);
    CREATE INDEX q_ready_order ON q_ready (queue, priority DESC, created_at, task_id);
    CREATE TABLE q_held (task_id bigint PRIMARY KEY, queue text NOT NULL, lease_until timestamptz NOT NULL);
    CREATE INDEX q_held_lease ON q_held (queue, lease_until);
    CREATE TABLE q_events (id bigserial PRIMARY KEY, task_id bigint, queue text NOT NULL, type text NOT NULL,
      actor_id uuid NOT NULL, payload jsonb NOT NULL DEFAULT '{}', created_at timestamptz NOT NULL DEFAULT now(),
      tx_id xid8 NOT NULL DEFAULT pg_current_xact_id());
    CREATE INDEX q_events_task ON q_events (task_id, id);
    CREATE INDEX q_events_feed ON q_events (tx_id, id);
    CREATE INDEX q_events_queue_feed ON q_events (queue, tx_id, id);`;
}

async function seed(url: string, variant: Variant, tasks: number): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(schema(variant));
    const board = variant === "floor-board";
    await sql.unsafe(`
      INSERT INTO q_tasks (id, queue, title, priority, created_at)
        SELECT i, 'default', 'task ' || i, 0, now() - (${tasks} - i) * interval '1 ms' FROM generate_series(1, ${tasks}) i;
      INSERT INTO q_state (task_id, queue, status${board ? ", priority, created_at" : ""})
        SELECT id, queue, 'queued'${board ? ", priority, created_at" : ""} FROM q_tasks;
      INSERT INTO q_ready SELECT id, queue, priority, created_at FROM q_tasks;`);
    await sql`VACUUM ANALYZE`;
  } finally {
    await sql.end();
  }
}

/**
 * One transaction a task, as the engine's loop: complete the task in hand (:id at :ver, only
 * if this agent holds it, started), claim and start the next. A client's first transaction
 * claims its first task alone.
 */
function script(variant: Variant): string {
  const claim = `WITH c AS (SELECT task_id FROM q_ready WHERE queue = 'default' ORDER BY priority DESC, created_at, task_id LIMIT 1 FOR UPDATE SKIP LOCKED), d AS (DELETE FROM q_ready r USING c WHERE r.task_id = c.task_id RETURNING r.task_id), u AS (UPDATE q_state s SET status = 'started', owner_id = :agent::uuid, lease_until = now() + interval '120 seconds', attempt = s.attempt + 1, version = s.version + 2, updated_at = now() FROM d WHERE s.task_id = d.task_id AND s.status = 'queued' RETURNING s.task_id, s.version), h AS (INSERT INTO q_held (task_id, queue, lease_until) SELECT task_id, 'default', now() + interval '120 seconds' FROM u) SELECT task_id AS next_id, version AS next_ver FROM u \\gset`;
  const probe = `SELECT EXISTS (SELECT 1 FROM q_held WHERE queue = 'default' AND lease_until <= now()) AS lapsed;`;
  const complete = [
    `UPDATE q_state SET status = 'done', lease_until = NULL, version = version + 1, updated_at = now() WHERE task_id = :id AND status = 'started' AND owner_id = :agent::uuid AND version = :ver;`,
    `DELETE FROM q_held WHERE task_id = :id;`,
  ];
  const notify = `pg_notify('claimboard_events', json_build_object('first', min(id)::text, 'last', max(id)::text, 'count', count(*))::text)`;
  const events = variant === "floor-no-events"
    ? [`SELECT pg_notify('claimboard_events', json_build_object('task', :id::text, 'next', :next_id::text)::text);`]
    : [`WITH inserted AS (INSERT INTO q_events (task_id, queue, type, actor_id, payload) VALUES (:id, 'default', 'completed', :agent::uuid, '{"status":"done"}'), (:next_id, 'default', 'claimed', :agent::uuid, '{"status":"claimed","leaseSeconds":120}'), (:next_id, 'default', 'started', :agent::uuid, '{"status":"started"}') RETURNING id) SELECT ${notify} FROM inserted;`];
  const first = [`WITH inserted AS (INSERT INTO q_events (task_id, queue, type, actor_id) VALUES (:next_id, 'default', 'claimed', :agent::uuid), (:next_id, 'default', 'started', :agent::uuid) RETURNING id) SELECT ${notify} FROM inserted;`];
  return [
    "\\if :id = 0", "BEGIN;", probe, claim, ...(variant === "floor-no-events" ? [] : first), "COMMIT;", "\\set id :next_id", "\\set ver :next_ver", "\\endif",
    "BEGIN;", ...complete, probe, claim, ...events, "COMMIT;", "\\set id :next_id", "\\set ver :next_ver",
  ].join("\n") + "\n";
}

/** A drain by pgbench, checked afterwards: as many tasks done, held and events written as the loop makes. */
async function drain(bin: string, url: string, variant: Variant, tasks: number, onWindow?: (edge: "open" | "close") => Promise<void>): Promise<number> {
  const perClient = Math.ceil(tasks / CLIENTS);
  await onWindow?.("open");
  const tps = await runPgbenchScript(bin, url, script(variant), { id: "0", ver: "0", agent: AGENT }, CLIENTS, perClient);
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
    const floor = (variant: Variant) => scratch(async (url) => (await seed(url, variant, slack), drain(bin, url, variant, tasks)));
    const pgboss = () => scratch((url) => runBaseline(baselines, "pgboss", url, CLIENTS, tasks));
    const engineSql = () => scratch(async (url) => {
      await seedQueued(url, slack);
      return runPgbench(bin, url, cycle, "loop", CLIENTS, perClient);
    }, true);
    for (const variant of VARIANTS) {
      rows.push(ratioRow(`${variant}-vs-pgboss`, `pgbench tasks/s (${variant}) ÷ pg-boss jobs/s, ${CLIENTS} clients`, await paired(reps, () => floor(variant), pgboss)));
    }
    rows.push(ratioRow("floor-vs-engine-sql", "pgbench tasks/s: floor ÷ the engine's own loop SQL", await paired(reps, () => floor("floor"), engineSql)));

    await withoutAutovacuum(server.admin, async () => {
      const walOf = (variant: Variant) => scratch(async (url) => {
        await seed(url, variant, slack);
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
      for (const variant of VARIANTS) {
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
