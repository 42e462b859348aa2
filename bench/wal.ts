import type postgres from "postgres";
import { baselineDrain, type Baselines } from "./baselines";
import { engineDrain } from "./engine-drain";
import type { Row } from "./lib/report";
import { seedQueued } from "./lib/seed";
import { summarize } from "./lib/stats";

/**
 * WAL a loop task writes, beside a pg-boss job: a count, not a rate, so it holds on a
 * noisy machine. Each drain is a window between two WAL positions (a CHECKPOINT first, so
 * every window pays its full-page images alike) around the drain alone — the queue seeded,
 * the pool and the actor set up before — counted with pg_walinspect. Autovacuum is off for
 * the windows (its writes would land in them by chance); nothing else runs on the server.
 */
export interface WalCount {
  bytes: number;
  records: number;
  fpiBytes: number;
}

// The insert position, not pg_current_wal_lsn() (the write position): with asynchronous commit
// the write position lags what the drain has already logged, and the window would miss its end.
export const lsn = async (admin: postgres.Sql) => ((await admin`SELECT pg_current_wal_insert_lsn()::text AS lsn`) as unknown as [{ lsn: string }])[0].lsn;

/** Every WAL record between two positions, per task. */
export async function walBetween(admin: postgres.Sql, from: string, to: string, tasks: number): Promise<WalCount> {
  if (from === to) return { bytes: 0, records: 0, fpiBytes: 0 };
  // pg_walinspect reads flushed WAL only. With asynchronous commit (the tests' cluster) the
  // walwriter flushes within 200 ms, but not on a loaded machine, so no waiting for it: a
  // transaction that writes WAL (a logical message, after the window), committed
  // synchronously, flushes everything before its commit record, `to` included.
  await admin.begin(async (tx) => {
    await tx`SET LOCAL synchronous_commit = on`;
    // A commit flushes only when the transaction wrote WAL: an xid alone writes none.
    await tx`SELECT pg_logical_emit_message(true, 'claimboard-bench', 'wal window')`;
  });
  const [{ flushed }] = (await admin`SELECT pg_current_wal_flush_lsn() >= ${to}::pg_lsn AS flushed`) as unknown as [{ flushed: boolean }];
  if (!flushed) throw new Error(`WAL up to ${to} is not flushed: pg_walinspect would count a short window`);
  const [row] = (await admin`
    SELECT sum(count)::float8 AS records, sum(combined_size)::float8 AS bytes, sum(fpi_size)::float8 AS fpi
    FROM pg_get_wal_stats(${from}::pg_lsn, ${to}::pg_lsn, false)`) as unknown as [{ records: number; bytes: number; fpi: number }];
  return { bytes: row.bytes / tasks, records: row.records / tasks, fpiBytes: row.fpi / tasks };
}

/** The engine's loop (claim+start once, then complete with next), `workers` workers, `jobs` tasks. */
export async function engineWal(admin: postgres.Sql, url: string, workers: number, jobs: number): Promise<WalCount> {
  await seedQueued(url, jobs);
  let from = "";
  let to = "";
  await engineDrain(url, {
    workers,
    total: jobs,
    window: {
      open: async () => {
        await admin`CHECKPOINT`;
        from = await lsn(admin);
      },
      close: async () => void (to = await lsn(admin)),
    },
  });
  return walBetween(admin, from, to, jobs);
}

/** pg-boss fetch → complete, the same workers and jobs (the window is taken in its process, around its drain). */
export async function pgbossWal(admin: postgres.Sql, baselines: Baselines, url: string, workers: number, jobs: number): Promise<WalCount> {
  const r = await baselineDrain(baselines, "pgboss", url, workers, jobs, { walWindow: true });
  if (!r.wal) throw new Error("pg-boss: no WAL window in its answer");
  return walBetween(admin, r.wal.from, r.wal.to, jobs);
}

/** `fn` with autovacuum off on the whole server (the bench's own), and pg_walinspect in admin's database. */
export async function withoutAutovacuum<T>(admin: postgres.Sql, fn: () => Promise<T>): Promise<T> {
  await admin`CREATE EXTENSION IF NOT EXISTS pg_walinspect`;
  await admin`ALTER SYSTEM SET autovacuum = off`;
  await admin`SELECT pg_reload_conf()`;
  try {
    return await fn();
  } finally {
    await admin`ALTER SYSTEM RESET autovacuum`;
    await admin`SELECT pg_reload_conf()`;
  }
}

/** Alternates the two (order flipped each repetition): the rows wal-per-task-vs-pgboss and wal-records-per-task. */
export async function walRows(reps: number, engine: () => Promise<WalCount>, pgboss: () => Promise<WalCount>, label: string): Promise<Row[]> {
  const a: WalCount[] = [];
  const b: WalCount[] = [];
  for (let i = 0; i < reps; i++) {
    if (i % 2 === 0) {
      a.push(await engine());
      b.push(await pgboss());
    } else {
      b.push(await pgboss());
      a.push(await engine());
    }
  }
  const row = (name: string, metric: string, of: (c: WalCount) => number, note: string): Row => {
    const ratios = summarize(a.map((x, i) => of(x) / of(b[i]!)));
    const value = summarize(a.map(of)).median;
    const baseline = summarize(b.map(of)).median;
    return { name, metric, value, baseline, ratio: ratios.median, spread: [ratios.min, ratios.max], note };
  };
  const fpi = (c: WalCount[]) => summarize(c.map((x) => x.fpiBytes)).median.toFixed(0);
  return [
    row("wal-per-task-vs-pgboss", `WAL bytes per task (pg_walinspect, full-page images included) ÷ pg-boss's, ${label}`, (c) => c.bytes,
      `full-page images ${fpi(a)} B/task vs ${fpi(b)}; per repetition ${a.map((x) => x.bytes.toFixed(0)).join(", ")} vs ${b.map((x) => x.bytes.toFixed(0)).join(", ")}`),
    row("wal-records-per-task", `WAL records per task ÷ pg-boss's, ${label}`, (c) => c.records,
      `per repetition ${a.map((x) => x.records.toFixed(1)).join(", ")} vs ${b.map((x) => x.records.toFixed(1)).join(", ")}`),
  ];
}
