import { churnRow, churnSoak, type ChurnOptions } from "./churn";
import type { BenchServer } from "./lib/pg";
import type { Row } from "./lib/report";

/**
 * The churn rows of `npm run bench` (docs/performance.md): the soak of bench/churn.ts at three
 * sizes. `churn-bloat-1m` is the soak the goal names, a million tasks and 30 minutes of steady
 * load, 1–2 hours on 2 cores: it runs only when named (`--only churn-bloat-1m`;
 * `npm run soak` is the same soak on its own). The full run has `churn-bloat-100k` and the quick
 * run `churn-bloat-50k`: the same soak scaled down, its autovacuum naptime scaled with it (60 s
 * for a million tasks; bench/churn.ts says why), the baseline after the first 10 % as in the
 * million's.
 */
export interface ChurnSize { name: string; opts: ChurnOptions }

const scaled = (name: string, tasks: number, steadyMinutes: number): ChurnSize => ({
  name,
  opts: {
    tasks, workers: 16, steadyMinutes,
    backlog: Math.min(10_000, tasks / 10),
    ...(tasks < 1_000_000 ? { naptimeSeconds: Math.max(1, Math.round((60 * tasks) / 1_000_000)) } : {}),
  },
});

/** The sizes this run measures: the quick or the full form, and the million only when named. */
export function churnSizes(quick: boolean, only: Set<string> | null): ChurnSize[] {
  const all = [scaled("churn-bloat-1m", 1_000_000, 30), scaled("churn-bloat-100k", 100_000, 3), scaled("churn-bloat-50k", 50_000, 0.5)];
  if (only) return all.filter((s) => only.has(s.name));
  return all.filter((s) => s.name === (quick ? "churn-bloat-50k" : "churn-bloat-100k"));
}

/** One soak on a database of its own, as a row. */
export async function churnBenchRow(server: BenchServer, size: ChurnSize, log: (line: string) => void): Promise<Row> {
  const name = `bench_${size.name.replaceAll("-", "_")}`;
  const url = await server.fresh(name);
  try {
    const result = await churnSoak(url, { ...size.opts, log: (line) => log(`  ${line}`) });
    const row = churnRow(size.name, size.opts, result);
    log(`  ${row.note}`);
    log(`  next: ${result.growth.slice(1, 6).map((g) => `${g.name} ${g.factor.toFixed(2)}`).join(", ")}`);
    return row;
  } finally {
    await server.drop(name);
  }
}
