import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim } from "@/lib/tasks";
import { monthOf } from "@/lib/events/partitions";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { rowCounts } from "@/test/inspect";

// The append-only guard on every partition of task_events (migration 0012): the parent's
// statement trigger does not fire for a TRUNCATE of one partition, and DETACH removes the
// cloned row triggers, so each partition carries its own; an event trigger refuses DROP and
// DETACH unless the archive's transaction set claimboard.archiving. lib/tasks/core/events.test.ts
// covers the same statements against the parent.

let f: EngineFixture;
const current = `task_events_${monthOf(new Date()).replace("-", "_")}`;
const targets = ["task_events", current, "task_events_default"];

beforeAll(async () => {
  f = await engineFixture();
  const amal = await f.actor("Amal");
  // The fixture's clock (2026-01-01) writes into DEFAULT (no partition that old); now, into this month's.
  await f.must(claim, { taskId: (await f.task("in default")).id, version: 1 }, amal);
  f.clock.set(new Date());
  await f.must(claim, { taskId: (await f.task("in this month")).id, version: 1 }, amal);
});
afterAll(async () => {
  await f?.close();
});

const snapshot = () => f.database.client<{ row: string }[]>`SELECT e::text AS row FROM task_events e ORDER BY id`;

describe("every partition refuses changes, attached", () => {
  test("both partitions hold rows (the guard has something to refuse)", async () => {
    const placed = await f.database.client<{ partition: string }[]>`SELECT DISTINCT tableoid::regclass::text AS partition FROM task_events ORDER BY 1`;
    expect(placed.map((p) => p.partition).sort()).toEqual([current, "task_events_default"].sort());
  });

  const statements = (table: string) => [
    `UPDATE ${table} SET payload = '{}'::jsonb`,
    `DELETE FROM ${table}`,
    `TRUNCATE ${table}`,
    `TRUNCATE ${table} CASCADE`,
  ];
  test.each(targets.flatMap((t) => statements(t)))("%s fails and the rows stay", async (statement) => {
    const before = await snapshot();
    await expect(f.database.client.unsafe(statement)).rejects.toThrow(/append-only/);
    expect(await snapshot()).toEqual(before);
  });
});

describe("dropping, detaching, or switching the guard off is refused outside the archive", () => {
  test("the migrating role is a superuser here, so the event triggers exist", async () => {
    const triggers = await f.database.client<{ evtname: string }[]>`SELECT evtname FROM pg_event_trigger ORDER BY 1`;
    expect(triggers.map((t) => t.evtname)).toEqual(["task_events_no_detach", "task_events_no_drop"]);
  });

  test.each([
    [`DROP TABLE ${current}`],
    ["DROP TABLE task_events_default"],
    ["DROP TABLE task_events CASCADE"],
    [`ALTER TABLE task_events DETACH PARTITION ${current}`],
    ["ALTER TABLE task_events DETACH PARTITION task_events_default"],
    [`DROP TRIGGER task_events_partition_no_truncate ON ${current}`],
    ["DROP TRIGGER task_events_no_update_or_delete ON task_events"],
    [`ALTER TABLE ${current} DISABLE TRIGGER ALL`],
    ["ALTER TABLE task_events DISABLE TRIGGER task_events_no_truncate"],
  ])("%s fails and nothing changes", async (statement) => {
    const before = await snapshot();
    const counts = await rowCounts(f.db);
    await expect(f.database.client.unsafe(statement)).rejects.toThrow(/append-only/);
    expect(await snapshot()).toEqual(before);
    expect(await rowCounts(f.db)).toEqual(counts);
    const [{ n } = { n: 0 }] = await f.database.client<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'task_events'::regclass`;
    expect(n).toBe(3); // this month, next month, DEFAULT
  });
});

describe("a detached partition still refuses changes", () => {
  // Only the archive's flag lets DETACH through; the month's own triggers go with it.
  test.each(["UPDATE {t} SET payload = '{}'::jsonb", "DELETE FROM {t}", "TRUNCATE {t}"])("%s on a detached month fails", async (template) => {
    const statement = template.replace("{t}", current);
    let detachedRows = 0;
    // The refusal aborts the transaction, which rolls the detach back with it.
    const outcome = await f.database.client
      .begin(async (tx) => {
        await tx`SELECT set_config('claimboard.archiving', 'on', true)`;
        await tx.unsafe(`ALTER TABLE task_events DETACH PARTITION ${current}`);
        const [{ n } = { n: 0 }] = await tx.unsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${current}`);
        detachedRows = n;
        await tx.unsafe(statement);
      })
      .then(() => "changed", (error: Error) => error.message);
    expect(detachedRows, "the month was detached, with rows").toBeGreaterThan(0);
    expect(outcome).toMatch(/^task_events is append-only/);
    const [{ n } = { n: 0 }] = await f.database.client<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'task_events'::regclass`;
    expect(n).toBe(3);
  });
});
