import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, complete, editTask, renew, start, type ActorRef } from "@/lib/tasks";
import { listTasks, listTasksQuery } from "@/lib/tasks/reads/queries";
import { migrateDatabase } from "@/db/migrate";
import { engineFixture, withStanding, type EngineFixture } from "@/test/engine";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { createActor } from "@/lib/tasks/core/actors";

// The search's words live in task_search, off the task row (migration 0025): written when a
// task is created or its words are edited, never by the agent loop, and moved there from
// every existing task by the migration.

/** A supervisor's edit: the one editTask, performed with the supervisor standing. */
const editAnyTask = withStanding(editTask, "supervisor");

let f: EngineFixture;
let amal: ActorRef;
let agent: ActorRef;
const queue = "search-table";

beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  agent = await f.actor("worker", "agent");
});
afterAll(async () => {
  await f?.close();
});

const titles = async (q: string) => (await listTasks(f.db, listTasksQuery.parse({ queue, q }), amal)).items.map((t) => t.title);
/** The transaction that last wrote the task's search row (its xmin). */
const writtenBy = async (id: string) =>
  ((await f.database.client`SELECT xmin::text AS x FROM task_search WHERE task_id = ${id}::bigint`) as unknown as { x: string }[])[0]?.x;

describe("task_search", () => {
  test("an edit's new words are found and its old ones no longer", async () => {
    const task = await f.task("Boiler inspection", { queue, description: "second floor", payload: { ref: "INV-7" } });
    expect(await titles("boiler")).toEqual(["Boiler inspection"]);
    await f.must(editAnyTask, { taskId: task.id, version: task.version, title: "Chimney sweep", description: "roof", payload: { ref: "INV-8" } }, amal);
    expect(await titles("boiler")).toEqual([]);
    expect(await titles("floor")).toEqual([]);
    expect(await titles("INV-7")).toEqual([]);
    expect(await titles("chimney roof")).toEqual(["Chimney sweep"]);
    expect(await titles("INV-8")).toEqual(["Chimney sweep"]);
  });

  test("an edit that changes no word (priority only) leaves the words' row alone", async () => {
    const task = await f.task("Gutter check", { queue });
    const before = await writtenBy(task.id);
    await f.must(editAnyTask, { taskId: task.id, version: task.version, priority: 7 }, amal);
    expect(await writtenBy(task.id)).toBe(before);
  });

  test("the agent loop never writes it: claim, start, heartbeat and complete leave the row as created", async () => {
    const task = await f.task("Meter reading", { queue, description: "flat 4" });
    const before = await writtenBy(task.id);
    expect(before).toBeDefined();
    const claimed = await f.must(claim, { taskId: task.id, version: task.version }, agent);
    const started = await f.must(start, { taskId: task.id, version: claimed.version }, agent);
    const beat = await f.must(renew, { taskId: task.id, version: started.version }, agent);
    await f.must(complete, { taskId: task.id, version: beat.version }, agent);
    expect(await writtenBy(task.id)).toBe(before);
    expect(await titles("meter flat")).toEqual(["Meter reading"]);
  });

  test("every task has exactly one row of words", async () => {
    const [counts] = (await f.database.client`
      SELECT (SELECT count(*)::int FROM tasks) AS tasks, (SELECT count(*)::int FROM task_search) AS words,
             (SELECT count(*)::int FROM tasks t WHERE NOT EXISTS (SELECT 1 FROM task_search s WHERE s.task_id = t.id)) AS missing`) as unknown as [{ tasks: number; words: number; missing: number }];
    expect(counts).toEqual({ tasks: counts!.tasks, words: counts!.tasks, missing: 0 });
    expect(counts!.tasks).toBeGreaterThan(0);
  });
});

describe("migration 0025 on a database with tasks", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase({ migratedUpTo: 24 });
    await database.client`
      INSERT INTO tasks (queue, title, description, payload)
      SELECT 'default', 'Old task ' || n, 'written before 0025', jsonb_build_object('code', 'OLD-' || n) FROM generate_series(1, 300) n`;
    await migrateDatabase(database.url);
  });
  afterAll(async () => {
    await database?.close();
  });

  test("every existing task's words move into task_search, and the search finds them", async () => {
    const [row] = (await database.client`SELECT count(*)::int AS n FROM task_search s JOIN tasks t ON t.id = s.task_id`) as unknown as [{ n: number }];
    expect(row!.n).toBe(300);
    const reader = await createActor(database.db, "user", "Reader");
    const found = await listTasks(database.db, listTasksQuery.parse({ q: "OLD-123" }), reader);
    expect(found.items.map((t) => t.title)).toEqual(["Old task 123"]);
    const all = await listTasks(database.db, listTasksQuery.parse({ q: "before 0025", limit: 100 }), reader);
    expect(all.items).toHaveLength(100);
  });

  test("the old expression index is gone: no task index recomputes the words", async () => {
    const indexes = (await database.client`SELECT indexname FROM pg_indexes WHERE tablename IN ('task_state', 'task_content') AND indexdef ILIKE '%to_tsvector%'`) as unknown as { indexname: string }[];
    expect(indexes).toEqual([]);
  });
});
