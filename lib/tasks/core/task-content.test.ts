import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, claimNext, complete, editTask, loadTask, perform, renew, start, type ActorRef } from "@/lib/tasks";
import { listTasks, listTasksQuery } from "@/lib/tasks/reads/queries";
import { createActor } from "@/lib/tasks/core/actors";
import { migrateDatabase } from "@/db/migrate";
import { engineFixture, withStanding, type EngineFixture } from "@/test/engine";
import { freshDatabase, type TestDatabase } from "@/test/db";

// A task's words (title, description, payload) live in task_content, off the row the loop
// writes (migration 0027, docs/data-model.md): written by a create and an edit, never by a
// claim, start, heartbeat or completion; `tasks` is a view of both, so readers see one row.

const editAnyTask = withStanding(editTask, "supervisor");

let f: EngineFixture;
let amal: ActorRef;
let agent: ActorRef;
const queue = "task-content";

beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  agent = await f.actor("worker", "agent");
  await f.queue(queue);
});
afterAll(async () => {
  await f?.close();
});

/** The transaction that last wrote a row of `table` (its xmin). */
const writtenBy = async (table: "task_state" | "task_content", id: string) =>
  ((await f.database.client.unsafe(`SELECT xmin::text AS x FROM ${table} WHERE id = $1::bigint`, [id])) as unknown as { x: string }[])[0]?.x;

describe("task_content", () => {
  test("the agent loop writes the state row only: claim, start, heartbeat, complete and claim-next leave the words' row as created", async () => {
    const task = await f.task("Meter reading", { queue, description: "flat 4", payload: { meter: "M-17" } });
    const words = await writtenBy("task_content", task.id);
    const state = await writtenBy("task_state", task.id);
    const claimed = await f.must(claim, { taskId: task.id, version: task.version }, agent);
    expect(claimed).toMatchObject({ title: "Meter reading", description: "flat 4", payload: { meter: "M-17" } });
    const started = await f.must(start, { taskId: task.id, version: claimed.version }, agent);
    const beat = await f.must(renew, { taskId: task.id, version: started.version }, agent);
    const done = await f.must(complete, { taskId: task.id, version: beat.version }, agent);
    expect(done).toMatchObject({ status: "done", title: "Meter reading", payload: { meter: "M-17" } });
    expect(await writtenBy("task_state", task.id)).not.toBe(state);
    expect(await writtenBy("task_content", task.id)).toBe(words);

    const next = await f.task("Second reading", { queue, payload: { meter: "M-18" } });
    const handedOut = await f.must(claimNext, { queue, start: true }, agent);
    expect(handedOut).toMatchObject({ id: next.id, status: "started", title: "Second reading", payload: { meter: "M-18" } });
  });

  test("an edit writes the words it changes, and the answer, the view and the search carry them", async () => {
    const task = await f.task("Boiler inspection", { queue, description: "second floor" });
    const words = await writtenBy("task_content", task.id);
    const moved = await f.must(editAnyTask, { taskId: task.id, version: task.version, priority: 3 }, amal);
    expect(await writtenBy("task_content", task.id)).toBe(words);
    const edited = await f.must(editAnyTask, { taskId: task.id, version: moved.version, title: "Chimney sweep", payload: { roof: true } }, amal);
    expect(edited).toMatchObject({ title: "Chimney sweep", description: "second floor", payload: { roof: true }, priority: 3, version: moved.version + 1 });
    expect(await loadTask(f.db, task.id)).toMatchObject({ title: "Chimney sweep", payload: { roof: true } });
    const found = await listTasks(f.db, listTasksQuery.parse({ queue, q: "chimney" }), amal);
    expect(found.items.map((t) => t.id)).toEqual([task.id]);
  });

  test("a refused edit writes no words", async () => {
    const task = await f.task("Gutter check", { queue });
    const stale = await f.run(editAnyTask, { taskId: task.id, version: task.version + 5, title: "Never" }, amal);
    expect(stale.ok).toBe(false);
    expect((await loadTask(f.db, task.id))?.title).toBe("Gutter check");
  });

  test("every state row has its words, and the view reads one row per task", async () => {
    const [counts] = (await f.database.client`
      SELECT (SELECT count(*)::int FROM task_state) AS state, (SELECT count(*)::int FROM task_content) AS content,
             (SELECT count(*)::int FROM tasks) AS view,
             (SELECT count(*)::int FROM task_state s WHERE NOT EXISTS (SELECT 1 FROM task_content c WHERE c.id = s.id)) AS missing`) as unknown as [
      { state: number; content: number; view: number; missing: number },
    ];
    expect(counts!.state).toBeGreaterThan(0);
    expect(counts).toEqual({ state: counts!.state, content: counts!.state, view: counts!.state, missing: 0 });
  });

  test("hand-written SQL through the view writes both tables, with the tables' defaults", async () => {
    const [made] = (await f.database.client`
      INSERT INTO tasks (queue, title) VALUES (${queue}, 'by hand') RETURNING id::text, status, version, description, payload`) as unknown as [
      { id: string; status: string; version: number; description: string; payload: unknown },
    ];
    expect(made).toMatchObject({ status: "queued", version: 1, description: "", payload: {} });
    await f.database.client`UPDATE tasks SET title = 'by hand, renamed', priority = 9 WHERE id = ${made!.id}::bigint`;
    expect(await loadTask(f.db, made!.id)).toMatchObject({ title: "by hand, renamed", priority: 9, status: "queued" });
    await expect(f.database.client`UPDATE tasks SET id = id + 1000000 WHERE id = ${made!.id}::bigint`).rejects.toThrow(/does not change/);
  });
});

describe("migration 0027 on a database with tasks in every state", () => {
  let database: TestDatabase;
  let before: unknown;
  beforeAll(async () => {
    database = await freshDatabase({ migratedUpTo: 26 });
    await database.client`INSERT INTO actors (id, kind, name) VALUES ('11111111-1111-4111-8111-111111111111', 'agent', 'old-bot')`;
    await database.client`
      INSERT INTO tasks (queue, title, description, payload, priority, status, owner_id, lease_until, lease_seconds, version, attempt,
                         claimed_at, progress, depends_on, blocked_by, idempotency_key, budget_limit, budget_unit, spent)
      SELECT 'default', 'Old task ' || n, 'written before 0027', jsonb_build_object('code', 'OLD-' || n), n % 7,
             s, CASE WHEN s <> 'queued' THEN '11111111-1111-4111-8111-111111111111'::uuid END,
             CASE WHEN s IN ('claimed', 'started') THEN now() + interval '1 hour' END,
             CASE WHEN s IN ('claimed', 'started') THEN 120 END,
             CASE s WHEN 'queued' THEN 1 WHEN 'claimed' THEN 2 WHEN 'started' THEN 3 ELSE 4 END,
             CASE WHEN s = 'queued' THEN 0 ELSE 1 END,
             CASE WHEN s IN ('claimed', 'started') THEN now() END,
             CASE WHEN s = 'started' THEN '{"step": 2}'::jsonb END,
             '{}', '{}', CASE WHEN n % 10 = 0 THEN 'key-' || n END,
             CASE WHEN n % 9 = 0 THEN 100 END, CASE WHEN n % 9 = 0 THEN 'usd' END, CASE WHEN n % 9 = 0 THEN 12.5 ELSE 0 END
      FROM generate_series(1, 200) n,
           LATERAL (SELECT (ARRAY['queued', 'claimed', 'started', 'done', 'escalated'])[1 + n % 5]::task_status AS s) x`;
    before = await database.client`SELECT to_jsonb(t) AS row FROM tasks t ORDER BY id`;
    await migrateDatabase(database.url);
  });
  afterAll(async () => {
    await database?.close();
  });

  test("every task reads through the view as it was, column for column", async () => {
    // Columns later migrations appended to the view (0038 checkpoint_id) are not 0027's to compare.
    const after = await database.client`SELECT to_jsonb(t) - 'checkpoint_id' AS row FROM tasks t ORDER BY id`;
    expect(after).toHaveLength(200);
    expect(after).toEqual(before);
    const [row] = (await database.client`SELECT count(*)::int AS n FROM task_content`) as unknown as [{ n: number }];
    expect(row!.n).toBe(200);
  });

  test("the words left the state row, its indexes stayed, and the search still finds old tasks", async () => {
    const columns = (await database.client`
      SELECT column_name FROM information_schema.columns WHERE table_name = 'task_state' AND column_name IN ('title', 'description', 'payload')`) as unknown as unknown[];
    expect(columns).toEqual([]);
    const indexes = (await database.client`SELECT indexname FROM pg_indexes WHERE tablename = 'task_state' ORDER BY 1`) as unknown as { indexname: string }[];
    expect(indexes.map((i) => i.indexname)).toContain("tasks_status_order");
    const reader = await createActor(database.db, "user", "Reader");
    const found = await listTasks(database.db, listTasksQuery.parse({ q: "OLD-125" }), reader);
    expect(found.items.map((t) => t.title)).toEqual(["Old task 125"]);
  });

  test("the engine goes on with the old tasks: a queued one is claimed, started and completed with its words", async () => {
    const worker = await createActor(database.db, "agent", "new-bot");
    const ctx = { db: database.db, actor: worker };
    const next = await perform(claimNext, { queue: "default", start: true }, ctx);
    if (!next.ok || !next.value) throw new Error(`no claim: ${JSON.stringify(next)}`);
    expect(next.value).toMatchObject({ status: "started", description: "written before 0027" });
    expect(next.value.title).toMatch(/^Old task \d+$/);
    const done = await perform(complete, { taskId: next.value.id, version: next.value.version }, ctx);
    expect(done).toMatchObject({ ok: true, value: { status: "done", title: next.value.title } });
  });
});
