import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claimBatch, completeMany, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf, failure, rowCounts, taskRow } from "@/test/inspect";

let f: EngineFixture;
let amal: ActorRef;
let bilal: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal", "agent");
  bilal = await f.actor("Bilal", "agent");
});
afterAll(async () => {
  await f?.close();
});

async function startedBatch(who: ActorRef, queue: string, n: number) {
  for (let i = 0; i < n; i++) await f.task(`${queue} ${i}`, { queue });
  return f.must(claimBatch, { queue, limit: n, start: true }, who);
}

describe("batch completion", () => {
  test("completes every item in one transaction, each with its own event and result", async () => {
    const tasks = await startedBatch(amal, "all", 10);
    const results = await f.must(completeMany, { tasks: tasks.map((t, i) => ({ id: t.id, version: t.version, result: { i } })) }, amal);
    expect(results.map((r) => r.id)).toEqual(tasks.map((t) => t.id));
    // Claimed with start (one act, one event) and completed: done at version 3, two events after created.
    expect(results.every((r) => r.ok && r.task.status === "done" && r.task.version === 3)).toBe(true);
    expect((await eventsOf(f.db, tasks[0]!.id)).map((e) => e.type)).toEqual(["created", "claimed", "completed"]);
    const last = await Promise.all(tasks.map(async (t) => (await eventsOf(f.db, t.id)).at(-1)!));
    expect(last.map((e) => e.type)).toEqual(Array(10).fill("completed"));
    expect(last.map((e) => (e.payload as { result: { i: number } }).result.i)).toEqual([...Array(10).keys()]);
    expect(new Set(last.map((e) => e.txId)).size).toBe(1);
  });

  test("a refused item says why and leaves the others done", async () => {
    const mine = await startedBatch(amal, "mixed", 3);
    const [theirs] = await startedBatch(bilal, "mixed-b", 1);
    const before = await rowCounts(f.db);
    const results = await f.must(completeMany, {
      tasks: [
        { id: mine[0]!.id, version: mine[0]!.version },
        { id: theirs!.id, version: theirs!.version },
        { id: mine[1]!.id, version: mine[1]!.version - 1 },
        { id: "999999", version: 1 },
        { id: mine[2]!.id, version: mine[2]!.version },
      ],
    }, amal);
    expect(results.map((r) => (r.ok ? "ok" : r.error.code))).toEqual(["ok", "not_owner", "version_conflict", "not_found", "ok"]);
    const refused = results[1]!;
    expect(!refused.ok && refused.error.task).toMatchObject({ id: theirs!.id, status: "started", owner: { name: "Bilal" } });
    expect(await taskRow(f.db, theirs!.id)).toMatchObject({ status: "started", ownerId: bilal.id });
    expect(await taskRow(f.db, mine[1]!.id)).toMatchObject({ status: "started" });
    expect(await rowCounts(f.db)).toEqual({ ...before, events: before.events + 2 });
  });

  test("a retried batch answers ok for what already took effect and writes nothing more", async () => {
    const tasks = await startedBatch(amal, "retried", 2);
    const input = { tasks: tasks.map((t) => ({ id: t.id, version: t.version })) };
    await f.must(completeMany, input, amal);
    const before = await rowCounts(f.db);
    const again = await f.must(completeMany, input, amal);
    expect(again.every((r) => r.ok && r.task.status === "done")).toBe(true);
    expect(await rowCounts(f.db)).toEqual(before);
  });

  test("bad batches are invalid_request and complete nothing: none, 101 items, a task twice", async () => {
    const tasks = await startedBatch(amal, "bad", 2);
    const item = { id: tasks[0]!.id, version: tasks[0]!.version };
    const before = await rowCounts(f.db);
    expect(failure(await f.run(completeMany, { tasks: [] }, amal), "invalid_request").field).toBe("tasks");
    const many = Array.from({ length: 101 }, (_, i) => ({ id: String(1000 + i), version: 1 }));
    expect(failure(await f.run(completeMany, { tasks: many }, amal), "invalid_request").message).toContain("at most 100");
    const twice = failure(await f.run(completeMany, { tasks: [item, { id: tasks[1]!.id, version: 4 }, item] }, amal), "invalid_request");
    expect(twice).toMatchObject({ field: "tasks.2.id" });
    expect(twice.message).toContain(`repeats task ${item.id}`);
    expect(await rowCounts(f.db)).toEqual(before);
  });
});
