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
import { claimBatch, claimNext } from "../lib/tasks/claiming/claim-next";
import { statementsSent, type Sent } from "../db/statements/render";
import { databaseClock } from "../lib/tasks/core/clock";
import { BENCH_AGENT, seedMixed } from "./lib/seed";
import { enableAutoExplain } from "./lib/auto-explain";
import { seedGraph } from "./graph";

const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
// Its own per run (pid): two runs on one server must not drop each other's scratch database.
const SCRATCH = `claimboard_explain_${process.pid}`;
/** EXPLAIN_TASKS: a smaller table for a quick check that the script runs; its plans then say little. */
const TASKS = Number(process.env.EXPLAIN_TASKS ?? 1_000_000);
const RUNS = 7;
const GRAPH = process.argv.includes("--graph");

/**
 * The engine's own statements of one claim in the "default" queue, as it sends them (the
 * driver's debug hook, db/statements/render.ts), the transaction rolled back: the bench
 * explains what the engine runs, never a copy of it. `limit` 1 is claim-next, more a batch
 * (the LIMIT is written into the text). The queue must have a lapsed lease, so the gate is
 * shut and the engine reads the queue's state, its reclaim budget, then claims.
 */
async function claimStatements(url: string, limit: number): Promise<{ queueState: Sent; budget: Sent; claim: Sent }> {
  const context = { actor: BENCH_AGENT, clock: databaseClock };
  const sent = await statementsSent(url, (db) =>
    db
      .transaction(async (tx) => {
        if (limit === 1) await claimNext.run(tx, { queue: "default" }, context);
        else await claimBatch.run(tx, { queue: "default", limit }, context);
        tx.rollback();
      })
      .catch((e: unknown) => {
        if (!(e instanceof TransactionRollbackError)) throw e;
      }));
  const last = (what: string, match: (s: Sent) => boolean) => {
    const found = sent.filter(match).at(-1);
    if (!found) throw new Error(`no ${what} among the claim's ${sent.length} statements`);
    return found;
  };
  return {
    queueState: last("queue-state read", (s) => s.text.includes("has_expired_lease")),
    budget: last("reclaim budget", (s) => s.text.includes("recent_expiries")),
    claim: last("claim after the rules", (s) => s.text.includes("candidates AS MATERIALIZED") && !s.text.includes("gate AS MATERIALIZED")),
  };
}

// docs/design.md#the-claim-statement's trap: one OR predicate over both candidate sets.
const OR_FORM = `SELECT id FROM task_state WHERE queue = $1
  AND (status = 'queued' OR (status IN ('claimed', 'started') AND lease_until < now()))
  ORDER BY priority DESC, created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`;

// The table: bench/lib/seed.ts seedMixed (5% queued, 2.5% lapsed leases, 20 live, the rest
// done; a lease_expired for 1 in 20, 50 of them inside the breaker window: the budget is 50).

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
async function explain(db: postgres.Sql, label: string, text: string, params: unknown[], write = false, judge = false): Promise<void> {
  const inTx = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (write) await db.unsafe("BEGIN");
    try {
      return await fn();
    } finally {
      if (write) await db.unsafe("ROLLBACK");
    }
  };
  const bound = params as postgres.ParameterOrJSON<never>[];
  const rows = await inTx(() => db.unsafe(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, bound));
  const plan = rows.map((r) => r["QUERY PLAN"] as string).join("\n");
  const median = await timed(label, () => inTx(() => db.unsafe(text, bound)));
  console.log(`\n=== ${label}\n${plan}\n--- median of ${RUNS} runs: ${ms(median)} (client round trip)`);
  if (judge) console.log(verdict(plan));
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

    const one = await claimStatements(url.toString(), 1);
    await explain(db, "(b) readQueueState: the queue, a lapsed lease?, a reserving task?, the claimer's cap", one.queueState.text, one.queueState.params);
    await explain(db, "(c) reclaimBudget: expiries in the window + clock probe", one.budget.text, one.budget.params);
    for (const limit of [1, 100]) {
      const { claim } = limit === 1 ? one : await claimStatements(url.toString(), limit);
      await explain(db, `(a) claim-next after the rules, limit ${limit}, BEGIN..ROLLBACK`, claim.text, claim.params, true, true);
    }
    await explain(db, "(d) contrast: the one-predicate OR form, limit 1", OR_FORM, ["default"], true);
    await engineClaimNext(url.toString(), "(e) lapsed leases, the gate shut");

    // In-flight worst case: ~25,000 held tasks, every lease live (the steady state of many
    // healthy workers), then one lapsed lease ranked below all of them.
    await db.unsafe(`UPDATE task_state SET lease_until = now() + interval '1 hour' WHERE status IN ('claimed', 'started')`);
    await db.unsafe(`VACUUM ANALYZE task_state, task_content, task_held, task_lease, task_queued`);
    console.log("\n##### in-flight worst case: ~25,000 held tasks with live leases");
    await explain(db, "(b') readQueueState, no lease lapsed", one.queueState.text, one.queueState.params);
    await engineClaimNext(url.toString(), "(e') no lease lapsed, the gate open");
    await db.unsafe(`UPDATE task_state SET lease_until = now() - interval '1 minute' WHERE id = (SELECT id FROM task_state
      WHERE status IN ('claimed', 'started') ORDER BY priority, created_at DESC, id DESC LIMIT 1)`);
    const ranked = await claimStatements(url.toString(), 1);
    await explain(db, "(a') claim-next, limit 1, one lapsed lease ranked last", ranked.claim.text, ranked.claim.params, true, true);
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
