import postgres from "postgres";
import { afterAll, beforeAll, expect, test } from "vitest";
import { serverCpu } from "@/bench/lib/cpu";
import { freshDatabase, type TestDatabase } from "@/test/db";

// bench/lib/cpu.ts reads the server's CPU from /proc for the cpu-per-task rows. A busy query
// must show up in it, whether its backend is still connected (read from its schedstat) or has
// exited since (read from the postmaster's cutime).

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db?.close();
});

/** Runs a query that keeps one backend on the CPU; returns its wall time, ms. */
async function busy(sql: postgres.Sql): Promise<number> {
  const t0 = performance.now();
  await sql`SELECT count(*) FROM generate_series(1, 3000000) g WHERE g % 7 = 3`;
  return performance.now() - t0;
}

test("the server's CPU counts a busy backend, live or exited", async (context) => {
  const meter = await serverCpu(db.client);
  if (!meter) return context.skip(); // a server on another machine (DATABASE_URL): the rows say so too

  let from = meter();
  let wall = await busy(db.client);
  expect(meter() - from).toBeGreaterThan(wall * 0.5);

  // A connection of its own that closes before the second reading: its backend exits.
  from = meter();
  const once = postgres(db.url, { max: 1, onnotice: () => {} });
  wall = await busy(once);
  await once.end();
  await new Promise((resolve) => setTimeout(resolve, 200)); // the postmaster reaps it
  expect(meter() - from).toBeGreaterThan(wall * 0.5);
});
