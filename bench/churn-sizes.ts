import type postgres from "postgres";

/**
 * What the churn soak samples (bench/churn.ts): the size of every loop table and of each of its
 * indexes, and the growth between two samples. Three kinds of relation, because "bloat" means
 * something different for each:
 * - `set`: task_queued, task_held, task_lease, claim_waits. Their live rows are bounded (the
 *   backlog, the workers), so any growth is dead space: growth = end ÷ baseline bytes.
 * - `per-task`: task_state, task_content, task_search keep one row a task for ever, so they grow
 *   with the tasks made; growth = bytes a row at the end ÷ bytes a row at the baseline, a
 *   partial index's rows being those its predicate takes (tasks_settled_owner: the done ones).
 * - `log`: task_events and its partitions, append-only by design (retired by `events archive`,
 *   docs/event-log.md): reported as bytes an event, never in the largest growth.
 */
export type Kind = "set" | "per-task" | "log";

export const LOOP_TABLES: Record<string, Kind> = {
  task_state: "per-task",
  task_content: "per-task",
  task_search: "per-task",
  task_queued: "set",
  task_held: "set",
  task_lease: "set",
  claim_waits: "set",
};

/**
 * Sizes below this count as this: a table of 16 live rows lives in one page, and its second
 * page would read as 2× growth. 64 KiB (8 pages) is where a doubling starts to be dead space
 * rather than the page a busy table's next insert happens to open.
 */
export const SMALL_BYTES = 64 * 1024;

/** `rows`: what a per-task relation holds (its table's rows, or a partial index's); 0 for the others. */
export interface Relation { name: string; table: string; kind: Kind; index: boolean; bytes: number; rows: number }
export interface Sample { relations: Relation[]; tasks: number; events: number }
export interface Growth { name: string; table: string; kind: Kind; baseline: number; end: number; factor: number }

/** Every loop table's heap and indexes (main fork), the tasks and the events, as they are now. */
export async function sampleSizes(sql: postgres.Sql): Promise<Sample> {
  const tables = Object.keys(LOOP_TABLES);
  const rows = await sql.unsafe<{ name: string; tbl: string; is_index: boolean; bytes: string }[]>(`
    WITH t AS (
      SELECT c.oid, c.relname AS tbl FROM pg_class c
      WHERE c.relname = ANY($1::text[]) AND c.relnamespace = 'public'::regnamespace
      UNION ALL
      SELECT p.relid, 'task_events' FROM pg_partition_tree('task_events') p WHERE p.isleaf
    )
    SELECT t.tbl, c.relname AS name, false AS is_index, pg_relation_size(t.oid)::bigint AS bytes
      FROM t JOIN pg_class c ON c.oid = t.oid
    UNION ALL
    SELECT t.tbl, c.relname, true, pg_relation_size(i.indexrelid)::bigint
      FROM t JOIN pg_index i ON i.indrelid = t.oid JOIN pg_class c ON c.oid = i.indexrelid
    ORDER BY 1, 3, 2`, [tables]);
  const [{ events }] = await sql.unsafe<[{ events: string }]>(`SELECT count(*) AS events FROM task_events`);
  const counts = await perTaskRows(sql);
  return {
    relations: rows.map((r) => {
      const kind = LOOP_TABLES[r.tbl] ?? "log";
      const held = kind === "per-task" ? (counts.get(r.name) ?? counts.get(r.tbl) ?? 0) : 0;
      return { name: r.name, table: r.tbl, kind, index: r.is_index, bytes: Number(r.bytes), rows: held };
    }),
    tasks: counts.get("task_state") ?? 0,
    events: Number(events),
  };
}

/** Each per-task table's rows, and each of its partial indexes' (the rows its predicate takes), in one scan a table. */
async function perTaskRows(sql: postgres.Sql): Promise<Map<string, number>> {
  const tables = Object.keys(LOOP_TABLES).filter((t) => LOOP_TABLES[t] === "per-task");
  const partial = await sql.unsafe<{ name: string; tbl: string; pred: string }[]>(`
    SELECT c.relname AS name, t.relname AS tbl, pg_get_expr(i.indpred, i.indrelid) AS pred
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
    WHERE t.relname = ANY($1::text[]) AND t.relnamespace = 'public'::regnamespace AND i.indpred IS NOT NULL`, [tables]);
  const counts = new Map<string, number>();
  for (const table of tables) {
    const mine = partial.filter((p) => p.tbl === table);
    const filters = mine.map((p, i) => `, count(*) FILTER (WHERE ${p.pred}) AS p${i}`).join("");
    const [row] = await sql.unsafe<Record<string, string>[]>(`SELECT count(*) AS n${filters} FROM ${table}`);
    counts.set(table, Number(row!.n));
    mine.forEach((p, i) => counts.set(p.name, Number(row![`p${i}`])));
  }
  return counts;
}

/** Each set's and per-task table's growth from `baseline` to `end`, largest first; the log is left out. */
export function growthFactors(baseline: Sample, end: Sample): Growth[] {
  const before = new Map(baseline.relations.map((r) => [r.name, r]));
  return end.relations
    .filter((r) => r.kind !== "log" && before.has(r.name))
    .map((r) => {
      const b = before.get(r.name)!;
      const factor = r.kind === "set"
        ? Math.max(r.bytes, SMALL_BYTES) / Math.max(b.bytes, SMALL_BYTES)
        : (Math.max(r.bytes, SMALL_BYTES) / Math.max(r.rows, 1)) / (Math.max(b.bytes, SMALL_BYTES) / Math.max(b.rows, 1));
      return { name: r.name, table: r.table, kind: r.kind, baseline: b.bytes, end: r.bytes, factor };
    })
    .sort((x, y) => y.factor - x.factor || x.name.localeCompare(y.name));
}

/** The event log's bytes an event (heap and indexes of every partition). */
export const logBytesPerEvent = (s: Sample) =>
  s.relations.filter((r) => r.kind === "log").reduce((n, r) => n + r.bytes, 0) / Math.max(s.events, 1);

export interface TableStats { relname: string; n_tup_upd: number; n_tup_hot_upd: number; n_dead_tup: number; n_live_tup: number; autovacuum_count: number }

/** pg_stat_user_tables for the loop tables; read after the workers' connections closed, so their counts are flushed. */
export async function tableStats(sql: postgres.Sql): Promise<TableStats[]> {
  await sql`SELECT pg_stat_clear_snapshot()`;
  const rows = await sql.unsafe<Record<string, string>[]>(`
    SELECT relname, n_tup_upd, n_tup_hot_upd, n_dead_tup, n_live_tup, autovacuum_count
    FROM pg_stat_user_tables WHERE relname = ANY($1::text[]) ORDER BY relname`, [Object.keys(LOOP_TABLES)]);
  return rows.map((r) => ({
    relname: r.relname!, n_tup_upd: Number(r.n_tup_upd), n_tup_hot_upd: Number(r.n_tup_hot_upd),
    n_dead_tup: Number(r.n_dead_tup), n_live_tup: Number(r.n_live_tup), autovacuum_count: Number(r.autovacuum_count),
  }));
}

/** HOT updates ÷ updates of `table` between two reads of the statistics (null: no update). */
export function hotRatio(before: TableStats[], after: TableStats[], table = "task_state"): number | null {
  const a = before.find((s) => s.relname === table);
  const b = after.find((s) => s.relname === table);
  if (!b) return null;
  const updates = b.n_tup_upd - (a?.n_tup_upd ?? 0);
  return updates > 0 ? (b.n_tup_hot_upd - (a?.n_tup_hot_upd ?? 0)) / updates : null;
}
