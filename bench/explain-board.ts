/**
 * The board's reads by status at a million tasks, as the app sends them: each read is one of
 * lib/'s own functions (the board's columns, counts, the queue list, a queue's list, the
 * gauges, the inbox badge), its statements captured from the driver and run again under
 * EXPLAIN (ANALYZE, BUFFERS). Prints a line a read — the call's median, each statement's
 * execution, the task indexes its plans use, and SEQ where one reads the table (a capped count
 * of a status most rows are in reads a few pages that way, which is cheap: look at the time) —
 * and with SHOW=<part of a label>, those plans. For a change to the task row's indexes or to design q's
 * sets: run it before and after (CHANGELOG.md, "the board's status indexes without the
 * held statuses").
 *   node --conditions=react-server --import tsx bench/explain-board.ts
 * DATABASE_URL: a superuser URL, default the local PostgreSQL. Its own scratch database,
 * dropped at the end (KEEP=1 keeps it; PLAN_DB=name reuses a kept one). ~1 min.
 */
import postgres from "postgres";
import { connectDatabase } from "../db/client";
import { migrateDatabase } from "../db/migrate";
import { readGauges } from "../lib/metrics/gauges";
import { countTasks, countTasksQuery } from "../lib/tasks/queues/counts";
import { listQueues } from "../lib/tasks/queues/queue-list";
import { listTasks, listTasksQuery } from "../lib/tasks/reads/queries";
import { orderFor } from "../components/task/filters";
import { BENCH_AGENT, seedMixed } from "./lib/seed";

const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const TASKS = Number(process.env.TASKS ?? 1_000_000);
/** A person who owns a few of the tasks (a few held, the rest done), as most owners do; the bench agent owns nearly all. */
const FEW = { id: "33333333-3333-4333-8333-333333333333", name: "few", kind: "user" as const };
const RUNS = 5;

/** seedMixed (5 % queued, 2.5 % held, the rest done, one queue) plus a second, small queue in four statuses and some escalated tasks. */
async function seed(url: string): Promise<void> {
  await migrateDatabase(url);
  await seedMixed(url, TASKS);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`INSERT INTO queues (name) VALUES ('rare')`);
    await sql.unsafe(`INSERT INTO tasks (queue, title, status, owner_id, lease_until, lease_seconds, version)
      SELECT 'rare', 'rare ' || i, s, CASE WHEN s IN ('started', 'done') THEN '${BENCH_AGENT.id}'::uuid END,
             CASE WHEN s = 'started' THEN now() + interval '1 hour' END, CASE WHEN s = 'started' THEN 60 END, 2
      FROM generate_series(1, 40) i, LATERAL (SELECT (ARRAY['queued', 'started', 'done', 'escalated'])[1 + i % 4]::task_status AS s) x`);
    await sql.unsafe(`UPDATE task_state SET status = 'escalated', owner_id = NULL WHERE queue = 'default' AND status = 'done' AND id % 1000 = 3`);
    await sql.unsafe(`INSERT INTO actors (id, kind, name) VALUES ('${FEW.id}', '${FEW.kind}', '${FEW.name}')`);
    await sql.unsafe(`UPDATE task_state SET owner_id = '${FEW.id}' WHERE status IN ('started', 'done') AND id % 20000 = 7`);
    await sql.unsafe(`VACUUM ANALYZE task_state, task_content, task_held, task_lease, task_queued`);
  } finally {
    await sql.end();
  }
}

async function main(): Promise<void> {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  const name = process.env.PLAN_DB ?? `claimboard_explain_board_${process.pid}`;
  const url = Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();
  if (!process.env.PLAN_DB) {
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const t0 = performance.now();
    await seed(url);
    console.log(`loaded ${TASKS} tasks in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  const captured: { query: string; parameters: unknown[] }[] = [];
  let capturing = false;
  const { db, client } = connectDatabase(url, { max: 1, debug: (_c, query, parameters) => void (capturing && captured.push({ query, parameters })) });
  const raw = postgres(url, { max: 1, onnotice: () => {} });
  try {
    console.log((await raw.unsafe(`SELECT version()`))[0]!.version);
    const actor = { id: BENCH_AGENT.id, name: BENCH_AGENT.name, kind: "agent" as const };
    const read = async (label: string, call: () => Promise<unknown>) => {
      await call(); // prepared, and its connection warm
      captured.length = 0;
      capturing = true;
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        await call();
        times.push(performance.now() - t0);
      }
      capturing = false;
      const statements = [...new Map(captured.map((c) => [c.query, c])).values()];
      const plans: string[] = [];
      // In one transaction, as a read that sets its own (SET LOCAL) settings runs them.
      await raw.begin(async (tx) => {
        for (const s of statements) {
          if (/^\s*(BEGIN|COMMIT|ROLLBACK)\b/i.test(s.query)) continue;
          const rows = await tx.unsafe(`EXPLAIN (ANALYZE, BUFFERS) ${s.query}`, s.parameters as never[]);
          plans.push(rows.map((r) => r["QUERY PLAN"] as string).join("\n"));
        }
      });
      const all = plans.join("\n");
      const indexes = [...new Set([...all.matchAll(/Scan(?: Backward)? (?:using|on) (tasks_\w+)/g)].map((m) => m[1]))];
      const executions = [...all.matchAll(/Execution Time: ([\d.]+)/g)].map((m) => Number(m[1]).toFixed(2));
      const median = times.sort((a, b) => a - b)[RUNS >> 1]!;
      console.log(`${median.toFixed(2).padStart(8)} ms  exec ${executions.join(" + ")} ms  ${/Seq Scan on task_state/.test(all) ? "SEQ " : ""}[${indexes.join(", ")}]  ${label}`);
      if (process.env.SHOW && label.includes(process.env.SHOW)) console.log(all);
    };
    for (const status of ["queued", "claimed", "started", "done", "escalated", "in_review"] as const) {
      const order = orderFor(status);
      await read(`board column ${status} (${order})`, () => listTasks(db, listTasksQuery.parse({ status, order, limit: 20 }), actor));
      await read(`board column ${status}, queue rare`, () => listTasks(db, listTasksQuery.parse({ status, order, limit: 20, queue: "rare" }), actor));
    }
    for (const queue of ["rare", "default"]) {
      await read(`queue ${queue} in every status (id order)`, () => listTasks(db, listTasksQuery.parse({ queue }), actor));
      await read(`queue ${queue} in every status (priority)`, () => listTasks(db, listTasksQuery.parse({ queue, sort: "priority" }), actor));
    }
    await read("mine, every status", () => listTasks(db, listTasksQuery.parse({ owner: "me" }), actor));
    await read("mine, every status, an owner of a few", () => listTasks(db, listTasksQuery.parse({ owner: "me" }), FEW));
    await read("mine, done, an owner of a few (newest)", () => listTasks(db, listTasksQuery.parse({ owner: "me", status: "done", order: "newest" }), FEW));
    await read("the board's counts", () => countTasks(db, countTasksQuery.parse({}), actor));
    await read("the board's counts, queue rare", () => countTasks(db, countTasksQuery.parse({ queue: "rare" }), actor));
    await read("the board's counts, mine, an owner of a few", () => countTasks(db, countTasksQuery.parse({ owner: "me" }), FEW));
    await read("the queue list", () => listQueues(db));
    await read("the metrics' gauges", () => readGauges(db));
  } finally {
    await client.end();
    await raw.end();
    if (!process.env.KEEP && !process.env.PLAN_DB) await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
