/**
 * Where the agent loop's WAL goes, relation by relation (docs/performance.md): the engine's
 * loop (claim+start, then complete with next; 16 workers) over TASKS tasks, or with
 * `--heartbeats N` each of 200 started tasks' N heartbeats (one agent, one at a time), autovacuum off,
 * a CHECKPOINT before the window, every WAL record of the window attributed by
 * pg_walinspect's block view to the relation of its first block (its full-page images to
 * the relation of each image's block). Records that name no block (commits, multixacts) are
 * "(no relation)".
 *   npx tsx bench/wal-relations.ts [tasks, default 2000] [--heartbeats N] [--setup SQL]
 * `--setup SQL` runs on the bench database before the drain: what an index change would save,
 * before anyone builds it (e.g. a partial index in place of a full one; CHANGELOG.md);
 * its statements run one at a time, outside a transaction, so a VACUUM FULL may be among them.
 * Starts the bench's own embedded PostgreSQL (bench/lib/pg.ts), or uses DATABASE_URL's server.
 */
import postgres from "postgres";
import { connectDatabase } from "@/db/client";
import { claimNext, perform, renew } from "@/lib/tasks";
import { createActor } from "@/lib/tasks/core/actors";
import { engineDrain } from "./engine-drain";
import { startBenchServer } from "./lib/pg";
import { seedQueued } from "./lib/seed";
import { withoutAutovacuum } from "./wal";

const TASKS = Number(process.argv[2] ?? 2000);
const SETUP = process.argv.find((_, i, all) => all[i - 1] === "--setup");
const BEATS = Number(process.argv.find((_, i, all) => all[i - 1] === "--heartbeats") ?? 0);
const HELD = 200;

/** 200 tasks claimed and started by one agent, then each renewed `beats` times, round-robin; the window around the heartbeats. */
async function heartbeats(url: string, beats: number, window: { open(): Promise<void>; close(): Promise<void> }) {
  const { db, client } = connectDatabase(url, { max: 1, applicationName: "bench-heartbeats" });
  try {
    const actor = await createActor(db, "agent", "bench-heartbeats");
    const must = async <T>(r: Promise<{ ok: true; value: T } | { ok: false; error: { message: string } }>) => {
      const result = await r;
      if (!result.ok) throw new Error(result.error.message);
      return result.value;
    };
    const held = [];
    for (let i = 0; i < HELD; i++) held.push((await must(perform(claimNext, { start: true, leaseSeconds: 3600 }, { db, actor })))!);
    await window.open();
    for (let b = 0; b < beats; b++) {
      for (let i = 0; i < held.length; i++) held[i] = await must(perform(renew, { taskId: held[i]!.id, version: held[i]!.version }, { db, actor }));
    }
    await window.close();
  } finally {
    await client.end();
  }
}

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
        // A statement at a time, so that VACUUM (which no transaction block may hold) can be one.
        try {
          for (const statement of SETUP.split(";").map((s) => s.trim()).filter(Boolean)) await setup.unsafe(statement);
        } finally {
          await setup.end();
        }
      }
      const lsn = async () => ((await server.admin`SELECT pg_current_wal_insert_lsn()::text AS lsn`) as unknown as [{ lsn: string }])[0].lsn;
      let from = "";
      let to = "";
      const window = { open: async () => { await server.admin`CHECKPOINT`; from = await lsn(); }, close: async () => void (to = await lsn()) };
      if (BEATS > 0) await heartbeats(url, BEATS, window);
      else await engineDrain(url, { workers: 16, total: TASKS, window });
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
    const [unit, per] = BEATS > 0 ? ["heartbeat", HELD * BEATS] : ["task", TASKS];
    console.log(`| relation | WAL B/${unit} (records) | of which full-page images | records/${unit} |\n|---|---|---|---|`);
    for (const r of rows.sort((a, b) => (a.relation === "total" ? 1 : b.relation === "total" ? -1 : b.bytes - a.bytes))) {
      console.log(`| ${r.relation} | ${(r.bytes / per).toFixed(0)} | ${(r.fpi / per).toFixed(0)} | ${(r.records / per).toFixed(1)} |`);
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
