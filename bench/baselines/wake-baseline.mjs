// Runs beside the installed pg-boss and graphile-worker in bench/.baselines (bench/baselines.ts copies it there), as
// queue-baseline.mjs does. One idle worker; `tries` times: a job is added (from another connection), and the time from
// just before the add to its handler's start is taken. Prints one JSON line: { samples: [ms…], version }.
//   node wake-baseline.mjs <graphile|pgboss|pgboss-notify> <url> <tries>
// graphile: graphile-worker's default run() (LISTEN on jobs:insert). pgboss: work() as configured by default (it polls,
// every 2 s). pgboss-notify: useListenNotify and a queue with notify: the job's insert NOTIFYs in its transaction.
import { readFileSync } from "node:fs";

const [mode, url, triesArg] = process.argv.slice(2);
const tries = Number(triesArg);
const versionOf = (name) => JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url), "utf8")).version;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const WARM = 2; // tries off the clock: the first adds load and plan their statements

/** Adds one job with `add`, resolves when `started` is called for it: ms. */
function timer(idleMs = () => 50) {
  let resolveStart = () => {};
  return {
    started: () => resolveStart(performance.now()),
    async time(add) {
      const started = new Promise((resolve) => (resolveStart = resolve));
      await sleep(idleMs()); // the worker idle, as an agent waiting for work is
      const t0 = performance.now();
      await add();
      return (await started) - t0;
    },
  };
}

async function graphile() {
  const { run, makeWorkerUtils, Logger } = await import("graphile-worker");
  const logger = new Logger(() => (level, message) => level === "error" && console.error(message));
  const utils = await makeWorkerUtils({ connectionString: url, logger });
  await utils.migrate();
  const t = timer();
  const runner = await run({ connectionString: url, concurrency: 1, noHandleSignals: true, logger, taskList: { job: async () => t.started() } });
  const samples = [];
  for (let i = -WARM; i < tries; i++) {
    const ms = await t.time(() => utils.addJob("job", { n: i }));
    if (i >= 0) samples.push(ms);
  }
  await runner.stop();
  await utils.release();
  return { samples, version: `graphile-worker ${versionOf("graphile-worker")}` };
}

async function pgBoss(notify) {
  const { PgBoss } = await import("pg-boss");
  const boss = new PgBoss({ connectionString: url, schedule: false, supervise: false, ...(notify ? { useListenNotify: true } : {}) });
  boss.on("error", (e) => console.error("pg-boss:", e));
  await boss.start();
  const queue = "wake";
  await boss.createQueue(queue, notify ? { notify: true } : {});
  // Polling: a job arrives at a random point of the 2 s interval, as work does, not right after the last fetch.
  const t = timer(notify ? undefined : () => Math.random() * 2000);
  await boss.work(queue, async () => t.started());
  const samples = [];
  for (let i = -WARM; i < tries; i++) {
    const ms = await t.time(() => boss.send(queue, { n: i }));
    if (i >= 0) samples.push(ms);
  }
  await boss.stop({ graceful: false, wait: true });
  return { samples, version: `pg-boss ${versionOf("pg-boss")}` };
}

const modes = { graphile: () => graphile(), pgboss: () => pgBoss(false), "pgboss-notify": () => pgBoss(true) };
if (!modes[mode]) throw new Error(`mode: one of ${Object.keys(modes).join(", ")}`);
console.log(JSON.stringify(await modes[mode]()));
process.exit(0);
