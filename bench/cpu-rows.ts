import { baselineDrain, type Baselines } from "./baselines";
import { engineDrain } from "./engine-drain";
import { serverCpu } from "./lib/cpu";
import type { BenchServer } from "./lib/pg";
import { ratioRow, type Row } from "./lib/report";
import { seedQueued } from "./lib/seed";
import { summarize } from "./lib/stats";

type Side = { client: number; server: number };

/**
 * What bounds engine-vs-pgboss on a machine whose cores the client and the server share: CPU
 * ms a task, the client's (this process, or pg-boss's child) and the server's (every
 * PostgreSQL process, from /proc), over the drain alone, 16 workers, `reps` runs alternated.
 * Null when the server's processes are not on this machine. CHANGELOG.md ("ninth step").
 */
export async function cpuRows(server: BenchServer, baselines: Baselines, reps: number, jobs: number, name: (kind: string) => string): Promise<Row[] | null> {
  const meter = await serverCpu(server.admin);
  if (!meter) return null;
  // Both sides warm, as running servers are: each drain works this many tasks first,
  // unmeasured, on the same process and connections (JIT, catalog caches, plans).
  const warmup = Math.min(jobs, 500);
  const engineSide = async (): Promise<Side> => {
    const db = name("cpu_engine");
    const url = await server.fresh(db);
    await seedQueued(url, jobs + warmup);
    let from = 0;
    const side = { client: 0, server: 0 };
    const window = { open: async () => void (from = meter()), close: async () => void (side.server = meter() - from) };
    await engineDrain(url, { workers: 16, total: jobs, window, warmup }, (ms) => (side.client = ms));
    await server.drop(db);
    return { client: side.client, server: side.server / jobs };
  };
  const pgbossSide = async (): Promise<Side> => {
    const db = name("cpu_pgboss");
    let from = 0;
    let used = 0;
    const marks = { start: () => void (from = meter()), end: () => void (used = meter() - from) };
    const r = await baselineDrain(baselines, "pgboss", await server.empty(db), 16, jobs, { marks, warmup });
    await server.drop(db);
    if (r.cpuMs === undefined) throw new Error("the pg-boss child did not report its CPU");
    return { client: r.cpuMs / jobs, server: used / jobs };
  };
  // Alternately, as paired() runs its sides: A B, B A, …
  const sides: { engine: Side; pgboss: Side }[] = [];
  for (let i = 0; i < reps; i++) {
    if (i % 2 === 0) {
      const engine = await engineSide();
      sides.push({ engine, pgboss: await pgbossSide() });
    } else {
      const pgboss = await pgbossSide();
      sides.push({ engine: await engineSide(), pgboss });
    }
  }
  const part = (pick: (s: Side) => number) => ({
    a: summarize(sides.map((s) => pick(s.engine))),
    b: summarize(sides.map((s) => pick(s.pgboss))),
    ratio: summarize(sides.map((s) => pick(s.engine) / pick(s.pgboss))),
  });
  const client = part((s) => s.client);
  const serverPart = part((s) => s.server);
  const ms = (x: number) => x.toFixed(2);
  return [
    ratioRow("cpu-per-task-vs-pgboss", "CPU ms a task, client + server (16 workers) ÷ pg-boss's a job", part((s) => s.client + s.server), undefined,
      `engine ${ms(client.a.median)} client + ${ms(serverPart.a.median)} server; pg-boss ${ms(client.b.median)} + ${ms(serverPart.b.median)}`),
    ratioRow("server-cpu-per-task-vs-pgboss", "the server's CPU ms a task ÷ pg-boss's a job (16 workers)", serverPart),
    ratioRow("client-cpu-per-task-vs-pgboss", "the client's CPU ms a task ÷ pg-boss's a job (16 workers)", client),
  ];
}
