/**
 * `npx tsx bench/latency.ts [tasks] [reps]`: the agent loop where the database is across a
 * network, as most deployments have it — not on loopback, where every other row runs. A
 * proxy in this process relays every packet to the bench's PostgreSQL after a delay
 * (DELAY_MS each way, default 0.5; Node's timers round it up to about 1 ms, so the measured
 * round trip is printed), and the engine's loop and pg-boss's fetch → complete drain through
 * it alternately, 4 and 16 workers. On loopback the loop is bound by CPU; here by round trips
 * a task: two for the loop since issue 21's tenth step (CHANGELOG.md), two for
 * pg-boss (fetch, complete). Not part of `npm run bench`: a scenario, printed as ratios.
 */
import net from "node:net";
import postgres from "postgres";
import { baselineDrain, ensureBaselines } from "./baselines";
import { engineDrain } from "./engine-drain";
import { startBenchServer } from "./lib/pg";
import { paired, ratioRow, table, type Row } from "./lib/report";
import { seedQueued } from "./lib/seed";

const TASKS = Number(process.argv[2] ?? 1500);
const REPS = Number(process.argv[3] ?? 3);
const DELAY_MS = Number(process.env.DELAY_MS ?? 0.5);

/** A TCP relay to `port` that holds every chunk DELAY_MS before passing it on, both ways. */
async function delayingProxy(host: string, port: number): Promise<{ port: number; close(): void }> {
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    // Without it, Nagle's algorithm and delayed ACKs add ~40 ms to small writes.
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    const relay = (from: net.Socket, to: net.Socket) => from.on("data", (chunk) => setTimeout(() => to.write(chunk), DELAY_MS));
    relay(client, upstream);
    relay(upstream, client);
    for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
      a.on("error", () => b.destroy());
      a.on("close", () => b.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

async function main() {
  const baselines = ensureBaselines();
  if (!baselines) throw new Error("pg-boss could not be installed: see above");
  const server = await startBenchServer();
  const target = new URL(server.urlFor("postgres"));
  const proxy = await delayingProxy(target.hostname, Number(target.port || 5432));
  const via = (url: string) => Object.assign(new URL(url), { port: String(proxy.port) }).toString();
  try {
    const probe = postgres(via(server.urlFor("postgres")), { max: 1, onnotice: () => {} });
    await probe`SELECT 1`;
    const t0 = performance.now();
    for (let i = 0; i < 20; i++) await probe`SELECT 1`;
    const rtt = (performance.now() - t0) / 20;
    await probe.end();
    console.log(`round trip through the proxy: ${rtt.toFixed(2)} ms (DELAY_MS ${DELAY_MS} each way); ${TASKS} tasks, ${REPS} repetitions`);

    const rows: Row[] = [];
    let n = 0;
    for (const workers of [4, 16]) {
      const engine = async () => {
        const name = `latency_engine_${n++}`;
        const url = await server.fresh(name);
        await seedQueued(url, TASKS + 200);
        const tps = await engineDrain(via(url), { workers, total: TASKS, warmup: 200 });
        await server.drop(name);
        return tps;
      };
      const pgboss = async () => {
        const name = `latency_pgboss_${n++}`;
        const tps = (await baselineDrain(baselines, "pgboss", via(await server.empty(name)), workers, TASKS, { warmup: 200 })).jobsPerSecond;
        await server.drop(name);
        return tps;
      };
      rows.push(ratioRow(`engine-vs-pgboss-at-${rtt.toFixed(1)}ms@${workers}`, "tasks/s through the delaying proxy ÷ pg-boss's jobs/s", await paired(REPS, engine, pgboss)));
    }
    console.log(table(rows));
  } finally {
    proxy.close();
    await server.stop();
  }
}

await main();
