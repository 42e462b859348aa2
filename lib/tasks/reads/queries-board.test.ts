import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, type ActorRef, type Task } from "@/lib/tasks";
import { listTasks, listTasksQuery, type TaskOrder } from "@/lib/tasks/reads/queries";
import { engineFixture, type EngineFixture } from "@/test/engine";

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

  test("bad values are refused with a readable message", () => {
    expect(listTasksQuery.safeParse({ order: "random" }).error?.issues[0]?.message).toBe("must be 'id', 'newest' or 'priority'");
    expect(listTasksQuery.safeParse({ needsCheck: "yes" }).error?.issues[0]?.message).toBe("must be 'true' or 'false'");
  });
});
