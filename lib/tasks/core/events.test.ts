import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf, rowCounts } from "@/test/inspect";

let f: EngineFixture;
beforeAll(async () => {
  f = await engineFixture();
});
afterAll(async () => {
  await f?.close();
});

describe("task_events is append-only, enforced by the database", () => {
  // Raw SQL through the driver, as a careless script or a compromised app path would send it.
  const attempts: [string, string][] = [
    ["UPDATE one row", "UPDATE task_events SET type = 'completed' WHERE type = 'claimed'"],
    ["UPDATE every row", "UPDATE task_events SET payload = '{}'::jsonb"],
    ["DELETE one row", "DELETE FROM task_events WHERE type = 'claimed'"],
    ["DELETE every row", "DELETE FROM task_events"],
    ["TRUNCATE", "TRUNCATE task_events"],
    ["TRUNCATE ... CASCADE", "TRUNCATE task_events CASCADE"],
    ["TRUNCATE of tasks, cascading to the log", "TRUNCATE task_state CASCADE"],
    ["TRUNCATE of the tasks' words", "TRUNCATE task_content"],
  ];

  test.each(attempts)("%s fails and the rows stay", async (_name, statement) => {
    const amal = await f.actor("Amal");
    const task = await f.task("audited");
    await f.must(claim, { taskId: task.id, version: 1 }, amal);
    const before = await eventsOf(f.db, task.id);
    const counts = await rowCounts(f.db);

    await expect(f.database.client.unsafe(statement)).rejects.toThrow(/append-only/);

    expect(await eventsOf(f.db, task.id)).toEqual(before);
    expect(await rowCounts(f.db)).toEqual(counts);
  });

  test("inserting is still allowed: every transition appends its rows", async () => {
    const amal = await f.actor("Amal");
    const counts = await rowCounts(f.db);
    const task = await f.task("appended");
    await f.must(claim, { taskId: task.id, version: 1 }, amal);
    expect(await rowCounts(f.db)).toEqual({ tasks: counts.tasks + 1, events: counts.events + 2 });
    const events = await eventsOf(f.db, task.id);
    expect(events.map((e) => [e.type, e.createdAt, e.queue])).toEqual([
      ["created", f.clock.time, "default"],
      ["claimed", f.clock.time, "default"],
    ]);
    expect(events[0]!.txId).not.toBe(events[1]!.txId);
  });
});
