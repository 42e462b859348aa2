import postgres from "postgres";
import { KeepAliveClient } from "./lib/http-client";
import type { BenchServerProcess } from "./lib/server";
import { percentile } from "./lib/stats";

/** Tasks given searchable words, the same number at any table size: a search finds a few. */
const MATCHES = 25;

/**
 * After seedMixed: MATCHES tasks spread over the table (and so over the statuses and the
 * 30 days) get an invoice title, description and payload, the words a person searches
 * for. Every other task is "task <i>" with an empty description and payload.
 */
export async function seedSearchable(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`
      UPDATE task_content t SET title = 'Reconcile invoice ' || t.id, description = 'Check the October ledger',
             payload = jsonb_build_object('invoice', 'INV-' || t.id, 'supplier', 'Northwind')
      FROM (SELECT id FROM task_content ORDER BY id) s
      WHERE t.id = s.id AND t.id % (SELECT greatest(1, count(*) / ${MATCHES}) FROM task_content) = 0`);
    await sql.unsafe(`VACUUM ANALYZE task_state, task_content, task_queued, task_search`);
  } finally {
    await sql.end();
  }
}

/** Searches a person types (the last word a prefix), each answered by the API's GET /tasks?q=. */
const SEARCHES = ["invoi", "reconcile invoice", "northw", "october ledg"];

/** Median (ms) of `requests` full responses of GET /api/v1/tasks?q=… (one at a time, rotating the searches). */
export async function searchMedian(server: BenchServerProcess, cookie: string, requests: number): Promise<number> {
  const client = new KeepAliveClient(server.url, 1);
  try {
    const times: number[] = [];
    for (let i = 0; i < requests; i++) {
      const q = encodeURIComponent(SEARCHES[i % SEARCHES.length]!);
      const t0 = performance.now();
      const r = await client.request("GET", `/api/v1/tasks?q=${q}&sort=updated&limit=50`, { cookie });
      if (r.status !== 200 || !r.text.includes("Reconcile invoice")) throw new Error(`search answered ${r.status}: ${r.text.slice(0, 300)}`);
      times.push(performance.now() - t0);
    }
    return percentile(times, 50);
  } finally {
    client.close();
  }
}
