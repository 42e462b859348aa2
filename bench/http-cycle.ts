import { connectDatabase } from "@/db/client";
import { createAgentToken } from "@/lib/auth/tokens";
import { KeepAliveClient } from "./lib/http-client";
import { machineTicks, type BenchServerProcess } from "./lib/server";
import { seedQueued } from "./lib/seed";
import { seconds } from "./lib/stats";

export interface HttpCycleResult {
  cyclesPerSecond: number;
  /** Server process CPU per task (one request, plus the first claim), ms. */
  serverCpuMsPerCycle: number;
  /**
   * Server process CPU per complete+next request, ms: measured from the moment every client
   * holds its first task (the claims are other requests, ~10 % of a 600-task drain by 64
   * clients and a quarter of a quick one's).
   */
  serverCpuMsPerRequest: number;
  /** This (client) process's CPU per cycle, ms. */
  clientCpuMsPerCycle: number;
  /** Share of the machine's CPU time that was busy during the run. */
  machineBusy: number;
}

/** One token per client, as each agent would have its own. */
export async function agentTokens(url: string, count: number, prefix: string): Promise<string[]> {
  const { db, client } = connectDatabase(url, { max: 1 });
  try {
    const tokens: string[] = [];
    for (let i = 0; i < count; i++) tokens.push((await createAgentToken(db, { name: `${prefix}-${i}` })).token);
    return tokens;
  } finally {
    await client.end();
  }
}

/**
 * The agent loop over HTTP, as the reference agent runs it: POST /claims {start: true} once,
 * then POST /tasks/{id}/complete {next: {start: true}} — one request a task — by
 * `tokens.length` keep-alive clients, until `total` tasks (seeded into `url` first) are done.
 */
export async function httpDrain(server: BenchServerProcess, url: string, tokens: string[], total: number): Promise<HttpCycleResult> {
  await seedQueued(url, total);
  const client = new KeepAliveClient(server.url, tokens.length);
  let done = 0;
  // Every client claims first; the loop's requests are counted from when the last holds its task.
  let claiming = tokens.length;
  let loopCpu0 = 0;
  let allClaimed!: () => void;
  const claimed = new Promise<void>((resolve) => (allClaimed = resolve));
  const worker = async (token: string) => {
    const headers = { authorization: `Bearer ${token}` };
    type Held = { id: string; version: number } | null;
    const answer = await client.request("POST", "/api/v1/claims", headers, { start: true }).finally(() => {
      if (--claiming === 0) {
        loopCpu0 = server.cpuSeconds();
        allClaimed();
      }
    });
    if (answer.status === 204) return;
    if (answer.status !== 200) throw new Error(`claim answered ${answer.status}: ${answer.text}`);
    let task = (JSON.parse(answer.text) as { task: Held }).task;
    await claimed;
    while (task) {
      const completed = await client.request("POST", `/api/v1/tasks/${task.id}/complete`, headers, { version: task.version, next: { start: true } });
      if (completed.status !== 200) throw new Error(`complete answered ${completed.status}: ${completed.text}`);
      done++;
      task = (JSON.parse(completed.text) as { next: Held }).next;
    }
  };
  try {
    // Warm the sockets (and the route) outside the clock.
    await Promise.all(tokens.map((t) => client.request("GET", "/api/v1/health", { authorization: `Bearer ${t}` })));
    const cpu0 = server.cpuSeconds();
    const own0 = process.cpuUsage();
    const m0 = machineTicks();
    const t0 = performance.now();
    await Promise.all(tokens.map(worker));
    const elapsed = seconds(t0);
    const m1 = machineTicks();
    const own = process.cpuUsage(own0);
    const cpu1 = server.cpuSeconds();
    if (done !== total) throw new Error(`HTTP drained ${done} of ${total}`);
    return {
      cyclesPerSecond: done / elapsed,
      serverCpuMsPerCycle: ((cpu1 - cpu0) * 1000) / done,
      serverCpuMsPerRequest: ((cpu1 - loopCpu0) * 1000) / done,
      clientCpuMsPerCycle: (own.user + own.system) / 1000 / done,
      machineBusy: (m1.busy - m0.busy) / (m1.total - m0.total),
    };
  } finally {
    client.close();
  }
}

/**
 * The floor of an API request on the same build: server CPU ms per request to a route
 * handler that answers JSON without touching the database (the catch-all's 404, which
 * passes neither the proxy nor any guard), by `clients` keep-alive clients.
 */
export async function bareRouteCpu(server: BenchServerProcess, clients: number, total: number): Promise<number> {
  const client = new KeepAliveClient(server.url, clients);
  try {
    const worker = async (share: number) => {
      for (let i = 0; i < share; i++) {
        const res = await client.request("POST", "/api/v1/bench-floor", { authorization: "Bearer cb_unused" }, { version: 1 });
        if (res.status !== 404) throw new Error(`the bare route answered ${res.status}: ${res.text}`);
      }
    };
    await Promise.all(Array.from({ length: clients }, () => worker(2))); // warm
    const cpu0 = server.cpuSeconds();
    await Promise.all(Array.from({ length: clients }, () => worker(Math.ceil(total / clients))));
    return ((server.cpuSeconds() - cpu0) * 1000) / (Math.ceil(total / clients) * clients);
  } finally {
    client.close();
  }
}
