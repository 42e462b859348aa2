/**
 * EXPLAIN (ANALYZE, BUFFERS) of the claim path at a million tasks (docs/claiming.md): claim-next
 * walks task_queued_order / task_held_order, lapsed leases included; the OR form sorts.
 *   npx tsx bench/explain-claim.ts           # DATABASE_URL: a superuser URL; default the local PostgreSQL
 *   npx tsx bench/explain-claim.ts --graph   # the work graph's table: 30 % blocked, 10 % not yet due
 * Creates its own scratch database, applies the migrations, drops it at the end (~1 min).
 */
import { TransactionRollbackError } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { migrateDatabase } from "../db/migrate";
import * as schema from "../db/schema";
import { claimNext } from "../lib/tasks/claiming/claim-next";
import { databaseClock } from "../lib/tasks/core/clock";
import { BENCH_AGENT, seedMixed } from "./lib/seed";
import { enableAutoExplain } from "./lib/auto-explain";
import { seedGraph } from "./graph";

const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
// Its own per run (pid): two runs on one server must not drop each other's scratch database.
const SCRATCH = `claimboard_explain_${process.pid}`;
const TASKS = 1_000_000;
const RUNS = 7;
const GRAPH = process.argv.includes("--graph");
const THRESHOLD = 100; // queues.expiry_threshold default
const WINDOW_SECONDS = 300; // queues.expiry_window_seconds default
const CLOCK_TOLERANCE_SECONDS = 5; // lib/tasks/claiming/breaker.ts

// claimBest's candidates inside claimRows' UPDATE (lib/tasks/claiming/claim-next.ts, claim-rows.ts).
// $1 queue, $2 limit, $3 lapsed limit (min(limit, reclaim budget)), $4 lease override, $5 start, $6 actor.
const CLAIM_NEXT = `
WITH candidates AS MATERIALIZED (
  WITH queued AS MATERIALIZED (
    SELECT task_state.id, task_state.status, task_state.owner_id, task_state.side_effect_recorded, task_state.priority, task_state.created_at
    FROM task_queued ready JOIN task_state ON task_state.id = ready.id
    WHERE ready.queue = $1 AND ready.not_before IS NULL
      AND coalesce(task_state.status = 'queued' AND task_state.blocked_by = '{}'::bigint[] AND task_state.not_before IS NULL, false)
    ORDER BY ready.priority DESC, ready.created_at, ready.id LIMIT $2
    FOR UPDATE OF task_state SKIP LOCKED
  ), due AS MATERIALIZED (
    SELECT task_state.id, task_state.status, task_state.owner_id, task_state.side_effect_recorded, task_state.priority, task_state.created_at
    FROM task_queued ready JOIN task_state ON task_state.id = ready.id
    WHERE ready.queue = $1 AND ready.not_before IS NOT NULL AND ready.not_before <= now()
      AND coalesce(task_state.status = 'queued' AND task_state.blocked_by = '{}'::bigint[] AND task_state.not_before <= now(), false)
    ORDER BY ready.not_before LIMIT $2
    FOR UPDATE OF task_state SKIP LOCKED
  ), lapsed AS MATERIALIZED (
    SELECT task_state.id, task_state.status, task_state.owner_id, task_state.side_effect_recorded, task_state.priority, task_state.created_at
    FROM task_held held JOIN task_lease lease ON lease.id = held.id JOIN task_state ON task_state.id = held.id
    WHERE held.queue = $1 AND (lease.lease_until <= now()) IS TRUE
      AND coalesce(task_state.status IN ('claimed', 'started') AND task_state.lease_until <= now(), false)
    ORDER BY held.priority DESC, held.created_at, held.id LIMIT $3
    FOR UPDATE OF task_state SKIP LOCKED
  )
  SELECT * FROM (SELECT * FROM queued UNION ALL SELECT * FROM due UNION ALL SELECT * FROM lapsed) candidate_sets
  ORDER BY priority DESC, created_at, id LIMIT $2
), decided AS (
  SELECT c.id, c.status AS previous_status, c.owner_id AS previous_owner_id,
         t.needs_check OR (c.status <> 'queued' AND c.side_effect_recorded) AS needs_check,
         coalesce($4::int, q.lease_seconds) AS lease_seconds
  FROM candidates c JOIN task_state t ON t.id = c.id JOIN queues q ON q.name = t.queue
)
UPDATE task_state t SET
  status = CASE WHEN $5::boolean AND NOT d.needs_check THEN 'started' ELSE 'claimed' END::task_status,
  owner_id = $6::uuid, lease_until = now() + make_interval(secs => d.lease_seconds),
  lease_seconds = d.lease_seconds, needs_check = d.needs_check, side_effect_recorded = false, not_before = NULL,
  version = t.version + CASE WHEN d.previous_status <> 'queued' THEN 1 ELSE 0 END + 1
    + CASE WHEN $5::boolean AND NOT d.needs_check THEN 1 ELSE 0 END,
  updated_at = now()
FROM decided d WHERE t.id = d.id
RETURNING t.*, d.previous_status, d.previous_owner_id`;

// readQueueState (lib/tasks/claiming/breaker.ts): the queue's settings and whether any lease lapsed.
const QUEUE_STATE = `
SELECT q.*, EXISTS (SELECT 1 FROM task_lease lease WHERE lease.queue = q.name
  AND lease.lease_until <= now()) AS has_expired
FROM queues q WHERE q.name = $1`;

// reclaimBudget (lib/tasks/claiming/breaker.ts): expiries in the window, and the clock probe.
const BUDGET = `
SELECT
  (SELECT count(*)::int FROM task_events WHERE queue = $1 AND type = 'lease_expired'
     AND created_at > now() - make_interval(secs => ${WINDOW_SECONDS}) AND id > $2::bigint) AS recent_expiries,
  EXISTS (SELECT 1 FROM (SELECT queue, id FROM task_events
      WHERE created_at > now() + make_interval(secs => ${CLOCK_TOLERANCE_SECONDS}) OFFSET 0) ahead
    WHERE ahead.queue = $1 AND ahead.id > $2::bigint) AS clock_behind`;

// docs/design.md#the-claim-statement's trap: one OR predicate over both candidate sets.
const OR_FORM = `SELECT id FROM task_state WHERE queue = $1
  AND (status = 'queued' OR (status IN ('claimed', 'started') AND lease_until < now()))
  ORDER BY priority DESC, created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`;

// The table: bench/lib/seed.ts seedMixed (5% queued, 2.5% lapsed leases, 20 live, the rest
// done; a lease_expired for 1 in 20, 50 of them inside the breaker window: the budget is 50).

type Param = string | number | boolean | null;
const ms = (n: number) => `${n.toFixed(3)} ms`;
const medians: [string, number][] = [];

/** Runs `fn` RUNS times; records and returns the median wall time. */
async function timed(label: string, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  const median = times.sort((a, b) => a - b)[RUNS >> 1]!;
  medians.push([label, median]);
  return median;
}

/**
 * An index walk: no Seq/Bitmap scan of tasks, no anti-join, no Sort of tasks rows (sorting the
 * ≤ 3n candidates is fine). Only what ran counts (a node "never executed" and what is under it
 * do not: the plain claim's lapsed walk, limit 0), and in a gated claim only its candidates
 * (the gate's anti-joins are NOT EXISTS probes of one index entry each).
 */
function verdict(plan: string): string {
  const candidates = plan.indexOf("CTE candidates");
  const walked: string[] = [];
  let skipBelow = -1;
  for (const line of (plan.includes("CTE gate") && candidates >= 0 ? plan.slice(candidates) : plan).split("\n")) {
    const indent = line.search(/\S/);
    if (skipBelow >= 0 && indent > skipBelow) continue;
    skipBelow = line.includes("(never executed)") ? indent : -1;
    if (skipBelow < 0) walked.push(line);
  }
  const bad = walked.filter((l) => /(Seq|Bitmap Heap) Scan on task_(state|held|queued)|Anti Join|Sort Key: (task\w*\.|held\.|ready\.)?(priority|not_before)/.test(l));
  const walks = ["task_queued_order", "task_queued_scheduled", "task_held_order"].filter((i) => plan.includes(`Index Scan using ${i}`));
  return bad.length === 0
    ? `VERDICT: index walk (${walks.join(" + ")}); no Seq Scan, no Sort over tasks`
    : `VERDICT: NOT an index walk:\n  ${bad.map((l) => l.trim()).join("\n  ")}`;
}

/** Prints the plan once and the median client round trip (parse + plan + execute); writes are rolled back. */
async function explain(db: postgres.Sql, label: string, text: string, params: Param[], write = false): Promise<void> {
  const inTx = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (write) await db.unsafe("BEGIN");
    try {
      return await fn();
    } finally {
      if (write) await db.unsafe("ROLLBACK");
    }
  };
  const rows = await inTx(() => db.unsafe(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params));
  const plan = rows.map((r) => r["QUERY PLAN"] as string).join("\n");
  const median = await timed(label, () => inTx(() => db.unsafe(text, params)));
  console.log(`\n=== ${label}\n${plan}\n--- median of ${RUNS} runs: ${ms(median)} (client round trip)`);
  if (text === CLAIM_NEXT) console.log(verdict(plan));
}

/**
 * The engine's own claimNext (lib/tasks), rolled back: its median, and via auto_explain the
 * plans it ran. In a plain queue that is one statement, the gated claim; where the gate is
 * shut (here: a lease has lapsed) the gated claim walks nothing and the claim after the
 * queue's state and the rules does the walking (docs/engine.md "The claim reads its queue itself").
 */
async function engineClaimNext(url: string, label: string): Promise<void> {
  const notices: string[] = [];
  const client = postgres(url, { max: 1, onnotice: (n) => notices.push(String(n.message)), connection: { TimeZone: "UTC" } });
  const db = drizzle(client, { schema });
  const once = () =>
    db
      .transaction(async (tx) => {
        const result = await claimNext.run(tx, { queue: "default" }, { actor: BENCH_AGENT, clock: databaseClock });
        if (!result.ok || !result.value) throw new Error(`claimNext claimed nothing: ${JSON.stringify(result)}`);
        tx.rollback();
      })
      .catch((e: unknown) => {
        if (!(e instanceof TransactionRollbackError)) throw e;
      });
  const median = await timed(`${label}: the engine's whole claimNext transaction`, once);
  await enableAutoExplain(client);
  await once();
  await client.end();
  // The claim statements (their candidates CTE), not the attempt-ceiling strike; each plan from its top node, after the query's text.
  const claims = notices.filter((n) => n.includes("Update on task_state") && n.includes("CTE candidates")).map((n) => n.slice(n.search(/^\S[^\n]*\(cost=/m)));
  const gated = claims.filter((plan) => plan.includes("CTE gate"));
  const shut = gated.length > 0 && claims.length > gated.length;
  console.log(`\n=== ${label}: the engine's claimNext (lib/tasks), auto_explain of its ${claims.length} claim statement(s)` +
    (shut ? "; the gate was shut, so the claim after the queue's state walked" : ""));
  claims.forEach((plan, i) => console.log(`--- claim statement ${i + 1} of ${claims.length}\n${plan}`));
  console.log(`--- median of ${RUNS} whole claimNext transactions (every statement, BEGIN..ROLLBACK): ${ms(median)}`);
  console.log(claims.length ? verdict(claims.at(-1)!) : "(no claim plan captured)");
}

async function main(): Promise<void> {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  const url = new URL(ADMIN_URL);
  url.pathname = `/${SCRATCH}`;
  await admin.unsafe(`DROP DATABASE IF EXISTS ${SCRATCH} WITH (FORCE)`);
  await admin.unsafe(`CREATE DATABASE ${SCRATCH}`);
  const db = postgres(url.toString(), { max: 1, onnotice: () => {}, connection: { TimeZone: "UTC" } });
  try {
    await migrateDatabase(url.toString());
    const t0 = performance.now();
    if (GRAPH) await seedGraph(url.toString(), TASKS);
    else await seedMixed(url.toString(), TASKS);
    const counts = await db.unsafe(`SELECT status, count(*)::int AS n,
      count(*) FILTER (WHERE lease_until <= now())::int AS lapsed FROM tasks GROUP BY 1 ORDER BY 1`);
    console.log(`loaded ${TASKS} tasks in ${((performance.now() - t0) / 1000).toFixed(1)} s:`,
      counts.map((c) => `${c.status} ${c.n}${c.lapsed ? ` (${c.lapsed} lapsed)` : ""}`).join(", "));
    console.log((await db.unsafe(`SELECT version()`))[0]!.version);

    await explain(db, "(b) readQueueState: EXISTS over lapsed leases", QUEUE_STATE, ["default"]);
    await explain(db, "(c) reclaimBudget: expiries in the window + clock probe", BUDGET, ["default", "0"]);
    const [stats] = await db.unsafe(BUDGET, ["default", "0"]);
    const budget = THRESHOLD - Number(stats!.recent_expiries);
    for (const limit of [1, 100]) {
      const lapsedLimit = Math.min(limit, budget);
      await explain(db, `(a) claim-next, limit ${limit} (lapsed limit ${lapsedLimit}), BEGIN..ROLLBACK`,
        CLAIM_NEXT, ["default", limit, lapsedLimit, null, false, BENCH_AGENT.id], true);
    }
    await explain(db, "(d) contrast: the one-predicate OR form, limit 1", OR_FORM, ["default"], true);
    await engineClaimNext(url.toString(), "(e) lapsed leases, the gate shut");

    // In-flight worst case: ~25,000 held tasks, every lease live (the steady state of many
    // healthy workers), then one lapsed lease ranked below all of them.
    await db.unsafe(`UPDATE task_state SET lease_until = now() + interval '1 hour' WHERE status IN ('claimed', 'started')`);
    await db.unsafe(`VACUUM ANALYZE task_state, task_content, task_held, task_lease, task_queued`);
    console.log("\n##### in-flight worst case: ~25,000 held tasks with live leases");
    await explain(db, "(b') readQueueState, no lease lapsed", QUEUE_STATE, ["default"]);
    await engineClaimNext(url.toString(), "(e') no lease lapsed, the gate open");
    await db.unsafe(`UPDATE task_state SET lease_until = now() - interval '1 minute' WHERE id = (SELECT id FROM task_state
      WHERE status IN ('claimed', 'started') ORDER BY priority, created_at DESC, id DESC LIMIT 1)`);
    await explain(db, "(a') claim-next, limit 1, one lapsed lease ranked last",
      CLAIM_NEXT, ["default", 1, 1, null, false, BENCH_AGENT.id], true);
    console.log("\n##### medians (client round trip)");
    for (const [label, t] of medians) console.log(`${ms(t).padStart(12)}  ${label}`);
  } finally {
    await db.end();
    await admin.unsafe(`DROP DATABASE IF EXISTS ${SCRATCH} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
