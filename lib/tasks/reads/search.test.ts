import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, type ActorRef, type Task } from "@/lib/tasks";
import { taskState } from "@/db/schema";
import { countTasks, countTasksQuery, COUNT_CAP } from "@/lib/tasks/queues/counts";
import { searchCondition } from "@/lib/tasks/reads/search";
import { listTasks, listTasksQuery } from "@/lib/tasks/reads/queries";
import { engineFixture, type EngineFixture } from "@/test/engine";

// GET /tasks?q= and sort= at the engine: what matches, what no input can break, the planner's
// use of the task_search_words index, keyset pages in every sort, and the capped counts.

let f: EngineFixture;
let amal: ActorRef;
const queue = "search";

beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  await f.task("Review inspection 7", { queue, priority: 5, description: "Boiler room on the second floor" });
  await f.task("Reconcile October invoices", { queue, priority: 1, payload: { invoice: "INV-42", contact: "amal@example.com" } });
  await f.task("Translate the safety notice", { queue, description: "Into Français and Deutsch" });
  await f.task("Résumé of the caretaker's calls", { queue, payload: { note: "callback before noon" } });
});
afterAll(async () => {
  await f?.close();
});

async function search(q: string, extra: Record<string, string> = {}): Promise<string[]> {
  const page = await listTasks(f.db, listTasksQuery.parse({ queue, q, ...extra }), amal);
  return page.items.map((t) => t.title);
}

describe("search", () => {
  test("matches words of the title, the description and the payload", async () => {
    expect(await search("inspection")).toEqual(["Review inspection 7"]);
    expect(await search("boiler floor")).toEqual(["Review inspection 7"]);
    expect(await search("INV-42")).toEqual(["Reconcile October invoices"]);
    expect(await search("amal@example.com")).toEqual(["Reconcile October invoices"]);
    expect(await search("noon")).toEqual(["Résumé of the caretaker's calls"]);
  });

  test("the last word matches as a prefix (search as you type); the others whole; every word must match", async () => {
    expect(await search("insp")).toEqual(["Review inspection 7"]);
    expect(await search("REVIEW INSPE")).toEqual(["Review inspection 7"]);
    expect(await search("rev inspection")).toEqual([]); // only the last word is a prefix
    expect(await search("boiler invoices")).toEqual([]);
    expect(await search("résu")).toEqual(["Résumé of the caretaker's calls"]);
    expect(await search("franç")).toEqual(["Translate the safety notice"]);
  });

  test("hostile text is words, never tsquery syntax: no error, no surprise", async () => {
    const hostile = ["a & | ! ( :*", "'", "\\", "':*", "!!!", ")(", "a:*b", "<->", "review & !inspection", "x' | 'y", "\u0000", "🙂", "-", "&&&& review"];
    for (const q of hostile) {
      const parsed = listTasksQuery.safeParse({ queue, q });
      if (!parsed.success) continue; // e.g. white space only
      await expect(listTasks(f.db, parsed.data, amal), q).resolves.toBeDefined();
    }
    expect(await search("!!!")).toEqual([]); // no word: nothing
    expect(await search("review & !inspection")).toEqual(["Review inspection 7"]); // "!" is not NOT
    expect(await search("&&&& review")).toEqual(["Review inspection 7"]);
  });

  test("q is 1..200 characters: 10,000 is refused naming q, in words", () => {
    const long = listTasksQuery.safeParse({ q: "x".repeat(10_000) });
    expect(long.error?.issues[0]).toMatchObject({ path: ["q"], message: "must be at most 200 characters" });
    expect(listTasksQuery.safeParse({ q: "   " }).error?.issues[0]).toMatchObject({ path: ["q"], message: "must not be empty" });
    expect(listTasksQuery.safeParse({ q: "x".repeat(200) }).success).toBe(true);
  });

  test("the planner can use the task_search_words index", async () => {
    const query = listTasksQuery.parse({ q: "boiler insp" });
    const plan = await f.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL enable_seqscan = off`);
      const rows = await tx.execute<{ "QUERY PLAN": string }>(sql`EXPLAIN SELECT id FROM ${taskState} WHERE ${searchCondition(query.q!)}`);
      return rows.map((r) => r["QUERY PLAN"]).join("\n");
    });
    expect(plan).toContain("task_search_words");
  });
});

describe("sort and keyset pages", () => {
  let walkQueue: string;
  let made: Task[];
  beforeAll(async () => {
    walkQueue = "sorts";
    made = [];
    for (const [i, priority] of [2, 0, 2, 1, 0, 2, 1].entries()) {
      f.clock.set(new Date(Date.UTC(2026, 0, 1, 0, 0, i % 3)));
      made.push(await f.task(`sort ${i}`, { queue: walkQueue, priority, description: "common word" }));
    }
  });

  async function walk(extra: Record<string, string>, between?: (page: number) => Promise<void>): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | undefined;
    let page = 0;
    do {
      const query = listTasksQuery.parse({ queue: walkQueue, limit: "2", ...extra, ...(cursor ? { cursor } : {}) });
      const result = await listTasks(f.db, query, amal);
      seen.push(...result.items.map((t) => t.id));
      cursor = result.nextCursor ?? undefined;
      await between?.(page++);
    } while (cursor);
    return seen;
  }

  const expected = async (orderBy: string) =>
    // (Named apart from id: ORDER BY id would sort the text, '10' before '7'.)
    (await f.db.execute<{ tid: string }>(sql.raw(`SELECT id::text AS tid FROM tasks WHERE queue = 'sorts' ORDER BY ${orderBy}`))).map((r) => r.tid);

  test("sort=priority is claim order, sort=created newest created first, each task once, with or without q", async () => {
    expect(await walk({ sort: "priority" })).toEqual(await expected("priority DESC, created_at, id"));
    expect(await walk({ sort: "created" })).toEqual(await expected("created_at DESC, id DESC"));
    expect(await walk({ sort: "created", q: "comm" })).toEqual(await expected("created_at DESC, id DESC"));
    expect(await walk({ order: "priority" })).toEqual(await walk({ sort: "priority" })); // order= still works
  });

  test("sort=updated: most recently changed first; a task changed mid-walk is neither repeated nor does it hide others", async () => {
    expect(await walk({ sort: "updated" })).toEqual(await expected("updated_at DESC, id DESC"));
    const all = await walk({ sort: "updated" });
    // After the first page, the task last in the order changes: it moves to the front, behind the reader.
    const moved = all.at(-1)!;
    const seen = await walk({ sort: "updated" }, async (page) => {
      if (page === 0) {
        f.clock.set(new Date(Date.UTC(2026, 0, 2)));
        const task = made.find((t) => t.id === moved)!;
        await f.must(claim, { taskId: task.id, version: task.version }, amal);
      }
    });
    expect(seen).toEqual(all.slice(0, -1)); // the moved task was not met again; nobody else was skipped
    expect(new Set(seen).size).toBe(seen.length);
  });

  test("sort and order together are refused, naming sort; a bad sort or cursor is named", () => {
    expect(listTasksQuery.safeParse({ sort: "priority", order: "id" }).error?.issues[0]?.path).toEqual(["sort"]);
    expect(listTasksQuery.safeParse({ sort: "random" }).error?.issues[0]).toMatchObject({ path: ["sort"], message: "must be 'priority', 'created' or 'updated'" });
    expect(listTasksQuery.safeParse({ cursor: "abc" }).error?.issues[0]).toMatchObject({ path: ["cursor"] });
  });

  test("filters: owner none, minPriority, olderThan", async () => {
    expect(await walk({ minPriority: "2" })).toHaveLength(3);
    expect(await walk({ owner: "none", minPriority: "2" })).toHaveLength(2); // Amal claimed one above
    expect(await walk({ olderThan: "60" })).toHaveLength(7); // made in 2026-01 by the fixture's clock; now() is later
    expect(await walk({ olderThan: "31536000" })).toHaveLength(0);
  });
});

describe("counts", () => {
  test("per status for the filter and per queue; exact below the cap", async () => {
    const counts = await countTasks(f.db, countTasksQuery.parse({ queue }), amal);
    expect(counts.statuses).toEqual({ queued: 4, claimed: 0, started: 0, done: 0, escalated: 0, cancelled: 0, in_review: 0, awaiting_input: 0 });
    expect(counts.queues.find((q) => q.queue === queue)?.statuses.queued).toBe(4);
    const searched = await countTasks(f.db, countTasksQuery.parse({ queue, q: "insp" }), amal);
    expect(searched.statuses.queued).toBe(1);
    const mine = await countTasks(f.db, countTasksQuery.parse({ owner: "me" }), amal);
    expect(mine.statuses.claimed).toBe(1); // the task claimed in the sort walk
  });

  test("a count stops at the cap + 1, so its cost does not grow with the table", async () => {
    await f.db.execute(sql`INSERT INTO queues (name) VALUES ('many') ON CONFLICT DO NOTHING`);
    await f.db.execute(sql`
      INSERT INTO tasks (queue, title, status) SELECT 'many', 'bulk ' || g, 'done' FROM generate_series(1, ${COUNT_CAP + 50}) g`);
    const counts = await countTasks(f.db, countTasksQuery.parse({ queue: "many" }), amal);
    expect(counts.statuses.done).toBe(COUNT_CAP + 1);
    expect(counts.cap).toBe(COUNT_CAP);
  });
});
