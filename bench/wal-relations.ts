/**
 * Where the agent loop's WAL goes, relation by relation (docs/performance.md): the engine's
 * loop (claim+start, then complete with next; 16 workers) over TASKS tasks, autovacuum off,
 * a CHECKPOINT before the window, every WAL record of the window attributed by
 * pg_walinspect's block view to the relation of its first block (its full-page images to
 * the relation of each image's block). Records that name no block (commits, multixacts) are
 * "(no relation)".
 *   npx tsx bench/wal-relations.ts [tasks, default 2000] [--setup SQL]
 * `--setup SQL` runs on the bench database before the drain: what an index change would save,
 * before anyone builds it (e.g. a partial index in place of a full one; docs/performance.md).
 * Starts the bench's own embedded PostgreSQL (bench/lib/pg.ts), or uses DATABASE_URL's server.
 */
import postgres from "postgres";
import { engineDrain } from "./engine-drain";
import { startBenchServer } from "./lib/pg";
import { seedQueued } from "./lib/seed";
import { withoutAutovacuum } from "./wal";

const TASKS = Number(process.argv[2] ?? 2000);
const SETUP = process.argv.find((_, i, all) => all[i - 1] === "--setup");

type Rel = { relation: string; records: number; bytes: number; fpi: number };

async function main() {
  const server = await startBenchServer();
  const name = `bench_wal_relations_${process.pid}`;
  try {
    const url = await server.fresh(name);
    const rows = await withoutAutovacuum(server.admin, async () => {
      await seedQueued(url, TASKS);
      if (SETUP) {
        const setup = postgres(url, { max: 1, onnotice: () => {} });
        await setup.unsafe(SETUP).finally(() => setup.end());
      }
      const lsn = async () => ((await server.admin`SELECT pg_current_wal_insert_lsn()::text AS lsn`) as unknown as [{ lsn: string }])[0].lsn;
      let from = "";
      let to = "";
      await engineDrain(url, {
        workers: 16, total: TASKS,
        window: { open: async () => { await server.admin`CHECKPOINT`; from = await lsn(); }, close: async () => void (to = await lsn()) },
      });
      await server.admin.begin(async (tx) => {
        await tx`SET LOCAL synchronous_commit = on`;
        await tx`SELECT pg_logical_emit_message(true, 'claimboard-bench', 'wal window')`;
      });
      // The relation names live in the bench database's catalog, pg_walinspect in the admin's.
      const blocks = (await server.admin`
        WITH b AS (SELECT * FROM pg_get_wal_block_info(${from}::pg_lsn, ${to}::pg_lsn)),
        firsts AS (SELECT DISTINCT ON (start_lsn) start_lsn, relfilenode, record_length FROM b ORDER BY start_lsn, block_id)
        SELECT relfilenode::text, count(*)::float8 AS records, sum(record_length)::float8 AS bytes,
               coalesce((SELECT sum(block_fpi_length) FROM b WHERE b.relfilenode = f.relfilenode), 0)::float8 AS fpi
        FROM firsts f GROUP BY relfilenode`) as unknown as { relfilenode: string; records: number; bytes: number; fpi: number }[];
      const [all] = (await server.admin`
        SELECT sum(count)::float8 AS records, sum(combined_size)::float8 AS bytes FROM pg_get_wal_stats(${from}::pg_lsn, ${to}::pg_lsn, false)`) as unknown as [{ records: number; bytes: number }];
      const db = postgres(url, { max: 1, onnotice: () => {} });
      const names = new Map(((await db`SELECT pg_relation_filenode(oid)::text AS f, relname FROM pg_class WHERE pg_relation_filenode(oid) IS NOT NULL`) as unknown as { f: string; relname: string }[]).map((r) => [r.f, r.relname]));
      await db.end();
      const out: Rel[] = blocks.map((b) => ({ relation: names.get(b.relfilenode) ?? `(relfilenode ${b.relfilenode})`, records: b.records, bytes: b.bytes, fpi: b.fpi }));
      const named = out.reduce((s, r) => ({ records: s.records + r.records, bytes: s.bytes + r.bytes }), { records: 0, bytes: 0 });
      out.push({ relation: "(no relation)", records: all.records - named.records, bytes: all.bytes - named.bytes, fpi: 0 });
      out.push({ relation: "total", records: all.records, bytes: all.bytes, fpi: out.reduce((s, r) => s + r.fpi, 0) });
      return out;
    });
    console.log(`| relation | WAL B/task (records) | of which full-page images | records/task |\n|---|---|---|---|`);
    for (const r of rows.sort((a, b) => (a.relation === "total" ? 1 : b.relation === "total" ? -1 : b.bytes - a.bytes))) {
      console.log(`| ${r.relation} | ${(r.bytes / TASKS).toFixed(0)} | ${(r.fpi / TASKS).toFixed(0)} | ${(r.records / TASKS).toFixed(1)} |`);
    }
  } finally {
    await server.drop(name);
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
