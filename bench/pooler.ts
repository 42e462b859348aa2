import { PGBOUNCER, startPgBouncer } from "@/test/pgbouncer";
import { engineDrain } from "./engine-drain";
import type { BenchServer } from "./lib/pg";
import { paired, ratioRow, type Row } from "./lib/report";
import { seedQueued } from "./lib/seed";

/**
 * The cost of running behind a transaction-mode pooler (docs/scaling.md), 16 engine workers:
 * unnamed statements (DATABASE_PREPARE=false: parsed and planned on every call, and
 * postgres.js describes each parameterised one first, a round trip more) against named
 * ones on a direct connection; then the same unnamed statements through PgBouncer 1.18
 * (transaction mode, a pool of 16) against direct — only the first without PgBouncer installed.
 */
export async function poolerRows(server: BenchServer, reps: number, jobs: number, fresh: () => Promise<string>): Promise<Row[]> {
  const drain = async (prepare: boolean, through?: (url: string) => string) => {
    const url = await fresh();
    await seedQueued(url, jobs);
    const rate = await engineDrain(through ? through(url) : url, { workers: 16, total: jobs, prepare });
    await server.drop(url.split("/").at(-1)!);
    return rate;
  };
  const rows: Row[] = [];
  const unnamed = await paired(reps, () => drain(false), () => drain(true));
  rows.push(ratioRow("engine-unprepared-vs-prepared", "cycles/s, DATABASE_PREPARE=false ÷ prepared, 16 workers, direct", unnamed));
  if (!PGBOUNCER) return rows;
  const pooler = await startPgBouncer(server.urlFor("postgres"), { poolSize: 16 });
  try {
    const via = await paired(reps, () => drain(false, (url) => pooler.via(url)), () => drain(true));
    rows.push(ratioRow("engine-pgbouncer-vs-direct", "cycles/s through PgBouncer (transaction mode, unprepared) ÷ direct (prepared), 16 workers", via));
  } finally {
    await pooler.stop();
  }
  return rows;
}
