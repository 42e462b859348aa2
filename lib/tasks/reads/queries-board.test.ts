import { and, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, complete, start, type ActorRef, type Task } from "@/lib/tasks";
import { inClaimOrderAcrossStatuses, listTasks, listTasksQuery, taskFilters, type TaskOrder } from "@/lib/tasks/reads/queries";
import { engineFixture, seedQueued, type EngineFixture } from "@/test/engine";
import { readOf } from "@/test/plans";

// The board's additions to listTasks (order, needsCheck), walked page by page.

let f: EngineFixture;
let amal: ActorRef;
const queue = "board";

beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  // Same priorities and same created_at (to the microsecond) force the id tie-break.
  for (const [i, priority] of [3, 1, 3, 0, 1, 3, -2, 1].entries()) {
    f.clock.set(new Date(Date.UTC(2026, 0, 1, 0, 0, i % 3, 0)));
    await f.task(`t${i}`, { queue, priority });
  }
  await f.db.execute(sql`UPDATE tasks SET created_at = created_at + interval '1 microsecond' WHERE title IN ('t2', 't5')`);
});
afterAll(async () => {
  await f?.close();
});

async function walk(order: TaskOrder | undefined, extra: Record<string, string> = {}): Promise<Task[]> {
  const seen: Task[] = [];
  let cursor: string | undefined;
  do {
    const query = listTasksQuery.parse({ queue, limit: "3", ...(order ? { order } : {}), ...extra, ...(cursor ? { cursor } : {}) });
    const page = await listTasks(f.db, query, amal);
    seen.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return seen;
}

describe("listTasks for the board", () => {
  test("the default order is still oldest first by id", async () => {
    const ids = (await walk(undefined)).map((t) => BigInt(t.id));
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
    expect(ids).toHaveLength(8);
  });

  test("newest first walks the ids backwards", async () => {
    const ids = (await walk("newest")).map((t) => BigInt(t.id));
    expect(ids).toEqual([...ids].sort((a, b) => (a > b ? -1 : 1)));
    expect(ids).toHaveLength(8);
  });

  test("claim order pages through priority, created_at (to the microsecond) and id, each task once", async () => {
    const seen = await walk("priority");
    const rows = await f.db.execute<{ id: string }>(sql`
      SELECT id::text FROM tasks WHERE queue = ${queue} ORDER BY priority DESC, created_at, id`);
    expect(seen.map((t) => t.id)).toEqual(rows.map((r) => r.id));
  });

  test("needsCheck filters on the flag", async () => {
    const [first] = await walk("priority");
    await f.db.execute(sql`UPDATE tasks SET needs_check = true WHERE id = ${first!.id}::bigint`);
    expect((await walk("priority", { needsCheck: "true" })).map((t) => t.id)).toEqual([first!.id]);
    expect(await walk("priority", { needsCheck: "false" })).toHaveLength(7);
  });

  test("filters combine with the status and owner filters", async () => {
    const [task] = await walk("priority", { needsCheck: "false" });
    await f.must(claim, { taskId: task!.id, version: task!.version }, amal);
    expect((await walk("newest", { status: "claimed", owner: "me" })).map((t) => t.id)).toEqual([task!.id]);
  });

  test("claim order across statuses: each status's best, merged, page by page, each task once", async () => {
    // Tasks of one priority in three statuses, so a page mixes them (the tie-breaks decide).
    const queued = (await walk("priority")).filter((t) => t.status === "queued");
    const [a, b] = [queued[1]!, queued[3]!];
    const held = await f.must(claim, { taskId: a.id, version: a.version }, amal);
    const claimed = await f.must(claim, { taskId: b.id, version: b.version }, amal);
    await f.must(complete, { taskId: b.id, version: (await f.must(start, { taskId: b.id, version: claimed.version }, amal)).version }, amal);
    const rows = await f.db.execute<{ id: string; status: string }>(sql`
      SELECT id::text, status FROM tasks WHERE queue = ${queue} ORDER BY priority DESC, created_at, id`);
    expect(new Set(rows.map((r) => r.status))).toEqual(new Set(["queued", "claimed", "done"]));
    const seen = await walk("priority");
    expect(seen.map((t) => t.id)).toEqual(rows.map((r) => r.id));
    expect(seen.find((t) => t.id === a.id)?.status).toBe(held.status);
    // sort=priority is the same order, and the other filters still apply to every status.
    expect((await walk(undefined, { sort: "priority" })).map((t) => t.id)).toEqual(rows.map((r) => r.id));
    expect((await walk(undefined, { sort: "priority", owner: "me" })).map((t) => t.id)).toEqual(
      rows.filter((r) => r.status !== "queued").map((r) => r.id));
  });

  test("a page in claim order across statuses reads a page a status, not the queue", async () => {
    await seedQueued(f, "board-big", 20_000, 5);
    const page = await listTasks(f.db, listTasksQuery.parse({ queue: "board-big", sort: "priority", limit: "3" }), amal);
    expect(page.items.map((t) => t.priority)).toEqual([4, 4, 4]);
    // The statement that chooses that page (its filters are the list's), under EXPLAIN ANALYZE.
    const chosen = inClaimOrderAcrossStatuses(and(...taskFilters({ queue: "board-big" }, amal)), 4);
    // Eight statuses, four rows each at most (the page and one more): one statement over them all read the queue's 20,000.
    expect(await readOf(f.db, chosen, "task_state", "rows"), "rows of task_state read").toBeLessThanOrEqual(40);
  });

  test("bad values are refused with a readable message", () => {
    expect(listTasksQuery.safeParse({ order: "random" }).error?.issues[0]?.message).toBe("must be 'id', 'newest' or 'priority'");
    expect(listTasksQuery.safeParse({ needsCheck: "yes" }).error?.issues[0]?.message).toBe("must be 'true' or 'false'");
  });
});
