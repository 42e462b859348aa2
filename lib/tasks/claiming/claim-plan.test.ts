import { afterAll, beforeAll, expect, test } from "vitest";
import { connectDatabase, type Database } from "@/db/client";
import { createActor } from "@/lib/tasks/core/actors";
import { perform } from "@/lib/tasks/core/engine";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { claimBatch, claimNext } from "./claim-next";

// The claim is planned once a connection, not once a call: its prepared statement's generic
// plan takes over after PostgreSQL's five custom plans. With its LIMITs bound as parameters
// the generic plan never won and every claim was planned afresh (CHANGELOG.md, issue
// 21's fifth step), so this counts the plans PostgreSQL itself reports for the statement. A
// queue of thousands: with a few dozen tasks even the bound form's generic plan won.

let database: TestDatabase;
let one: Database;
beforeAll(async () => {
  database = await freshDatabase();
  one = connectDatabase(database.url, { max: 1, prepare: true, applicationName: "claimboard-test" });
  await database.client`INSERT INTO tasks (queue, title) SELECT 'default', 'task ' || i FROM generate_series(1, 3000) i`;
  await database.client`VACUUM ANALYZE task_state, task_content, task_held, task_queued`;
});
afterAll(async () => {
  await one?.client.end({ timeout: 5 });
  await database?.close();
});

const claimPlans = async () => {
  const rows = await one.client<{ limits: string; generic: number; custom: number }[]>`
    SELECT substring(statement FROM 'LIMIT ([0-9]+)') AS limits, generic_plans::int AS generic, custom_plans::int AS custom
    FROM pg_prepared_statements
    WHERE statement LIKE '%candidates AS MATERIALIZED%' AND statement NOT LIKE '%pg_prepared_statements%'`;
  return rows;
};

test("claim-next and claim-batch run their generic plan after five custom ones, on one connection", async () => {
  const actor = await createActor(one.db, "agent", "planner");
  for (let i = 0; i < 12; i++) {
    const claimed = await perform(claimNext, { start: true }, { db: one.db, actor });
    expect(claimed.ok && claimed.value !== null).toBe(true);
  }
  for (let i = 0; i < 8; i++) {
    const claimed = await perform(claimBatch, { limit: 3, start: true }, { db: one.db, actor });
    expect(claimed.ok && claimed.value.length).toBe(3);
  }
  const plans = await claimPlans();
  // Each planned custom five times, then generic; one statement a limit (1, and the batch's 3).
  expect(plans.length).toBeGreaterThan(0);
  for (const p of plans) expect({ custom: p.custom, generic: p.generic > 0 }).toEqual({ custom: 5, generic: true });
  expect(plans.map((p) => p.limits).sort()).toEqual(["1", "3"]);
});
