// The HTTP loop's rows (docs/performance.md): http-vs-engine, http-server-cpu and
// http-vs-bare-next, against one `next start`. run.ts registers them as a section.
import { engineDrain } from "./engine-drain";
import { agentTokens, bareRouteCpu, httpDrain, type HttpCycleResult } from "./http-cycle";
import type { BenchServer } from "./lib/pg";
import { paired, ratioRow, type Row } from "./lib/report";
import { seedQueued } from "./lib/seed";
import type { BenchServerProcess } from "./lib/server";
import { summarize } from "./lib/stats";

/**
 * HTTP tasks/s (64 keep-alive clients, complete+next) ÷ engine-direct with 64 workers, the
 * server's CPU per task, and its CPU per request ÷ a bare JSON route's of the same build.
 */
export async function httpRows(
  next: BenchServerProcess, url: string, server: BenchServer, db: (server: BenchServer, kind: string) => Promise<string>,
  SIZES: { httpCycles: number; httpReps: number; jobs: number }, rows: Row[],
): Promise<void> {
  const tokens = await agentTokens(url, 64, "bench-http");
  const https: HttpCycleResult[] = [];
  const engineCpu: number[] = [];
  // Both sides as they run in service, and of one size. next start loads a route's modules
  // on its first request and its JIT warms over the first hundreds, so one drain runs off the
  // clock first (cold, 250 tasks drained at 256/s; the same server warm, 474/s). The engine's
  // drains warm their new pools the same way. A drain of 64 clients has a start and a tail
  // whose share shrinks with its length, so both sides drain the same number of tasks.
  await httpDrain(next, url, tokens, SIZES.httpCycles);
  const warmup = 4 * 64;
  const p = await paired(
    SIZES.httpReps,
    async () => {
      const r = await httpDrain(next, url, tokens, SIZES.jobs);
      https.push(r);
      return r.cyclesPerSecond;
    },
    async () => {
      const e = await db(server, "engine64");
      await seedQueued(e, SIZES.jobs + warmup);
      const rate = await engineDrain(e, { workers: 64, total: SIZES.jobs, warmup }, (ms) => engineCpu.push(ms));
      await server.drop(e.split("/").at(-1)!);
      return rate;
    },
  );
  const cpu = summarize(https.map((h) => h.serverCpuMsPerCycle)).median;
  const client = summarize(https.map((h) => h.clientCpuMsPerCycle)).median;
  const busy = summarize(https.map((h) => h.machineBusy)).median;
  const engineMs = summarize(engineCpu).median;
  // next start runs its JavaScript on one thread: one core at most, however idle the rest.
  const bound = 1000 / cpu / p.b.median;
  rows.push(ratioRow("http-vs-engine", "HTTP tasks/s (64 keep-alive clients, complete+next) ÷ engine-direct, 64 workers; both warm, the same tasks", p, { op: ">=", target: 0.6 },
    `server CPU ${cpu.toFixed(1)} ms/task (1 request; engine-direct process ${engineMs.toFixed(1)} ms), HTTP client ${client.toFixed(1)} ms; ` +
    `server used ${((p.a.median * cpu) / 10).toFixed(0)}% of a core, machine ${(busy * 100).toFixed(0)}% busy; ` +
    `bound with a whole core for the server: ${bound.toFixed(2)}`));
  rows.push({ name: "http-server-cpu", metric: "next start CPU ms per task (its complete+next request, and each client's first claim)", value: cpu, baseline: null, ratio: null });
  // The same build's floor, measured alternately with the loop's requests.
  const floors: number[] = [];
  const loops: number[] = [];
  const withClaims: number[] = [];
  for (let rep = 0; rep < SIZES.httpReps; rep++) {
    floors.push(await bareRouteCpu(next, 64, SIZES.httpCycles));
    const drained = await httpDrain(next, url, tokens, SIZES.httpCycles);
    loops.push(drained.serverCpuMsPerRequest);
    withClaims.push(drained.serverCpuMsPerCycle);
  }
  const floor = summarize(floors).median;
  const perRequest = summarize(loops).median;
  rows.push({
    name: "http-vs-bare-next", metric: "server CPU ms per API request (complete+next) ÷ per request to a bare JSON route of the same build",
    value: perRequest, baseline: floor, ratio: perRequest / floor, goal: "<= 2", met: perRequest / floor <= 2,
    note: `per request ${loops.map((v) => v.toFixed(2)).join(", ")} ms; bare ${floors.map((v) => v.toFixed(2)).join(", ")} ms; ` +
      `per task with the 64 first claims counted ${withClaims.map((v) => v.toFixed(2)).join(", ")} ms`,
  });
}
