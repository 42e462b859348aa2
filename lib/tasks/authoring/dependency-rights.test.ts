import { afterAll, beforeAll, expect, test } from "vitest";
import * as tasks from "@/lib/tasks";
import { addDependencies, claim, createTask, release, type ActorRef } from "@/lib/tasks";
import { engineFixture, withStanding, type EngineFixture } from "@/test/engine";
import { eventsOf, eventTypes, failure, taskRow } from "@/test/inspect";

// Adding a dependency blocks a task: only those who may edit it (its creator, its last
// holder, a supervisor) may, and the same people may take one away again
// (DELETE /tasks/{id}/dependencies/{dep}, version-fenced, a dependency_removed event).

let f: EngineFixture;
let maker: ActorRef;
let holder: ActorRef;
let stranger: ActorRef;
let boss: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  maker = await f.actor("Maker", "agent");
  holder = await f.actor("Holder", "agent");
  stranger = await f.actor("Stranger", "agent");
  boss = await f.actor("Boss");
  await f.queue("graph");
});
afterAll(async () => {
  await f?.close();
});

const add = withStanding(addDependencies, "agent");
const addAsBoss = withStanding(addDependencies, "supervisor");
// The removal, by the name the engine exports it under (absent before: the test fails).
const removeOp = () => (tasks as unknown as Record<string, typeof addDependencies>).removeDependency!;
const remove = (standing: "agent" | "supervisor") => withStanding(removeOp() as never, standing) as unknown as typeof addDependencies;
const made = (title: string) => f.must(createTask, { title, queue: "graph" }, maker);

test("a stranger's token cannot block someone else's task; creator, last holder and supervisor can", async () => {
  const task = await made("guarded");
  const a = await made("a");
  const b = await made("b");
  const c = await made("c");
  const refused = failure(await f.run(add, { taskId: task.id, version: 1, dependsOn: [a.id] }, stranger), "forbidden");
  expect(refused.message).toMatch(/created|holder|supervisor/);
  expect(await eventTypes(f.db, task.id)).toEqual(["created"]);
  expect((await taskRow(f.db, task.id)).blockedBy).toEqual([]);

  const byMaker = await f.must(add, { taskId: task.id, version: 1, dependsOn: [a.id] }, maker);
  const claimed = await f.must(claim, { taskId: b.id, version: 1 }, holder);
  await f.must(release, { taskId: b.id, version: claimed.version }, holder);
  // The holder of `task` itself: claim it (blocked tasks cannot be claimed, so a fresh one).
  const held = await made("held");
  const h = await f.must(claim, { taskId: held.id, version: 1 }, holder);
  const back = await f.must(release, { taskId: held.id, version: h.version }, holder);
  expect(await f.must(add, { taskId: held.id, version: back.version, dependsOn: [b.id] }, holder)).toMatchObject({ dependsOn: [b.id] });
  expect(await f.must(addAsBoss, { taskId: task.id, version: byMaker.version, dependsOn: [c.id] }, boss)).toMatchObject({ dependsOn: [a.id, c.id] });
});

test("a dependency can be removed, fenced by version, by those who may edit; with a dependency_removed event", async () => {
  const task = await made("unblock me");
  const a = await made("dep a");
  const b = await made("dep b");
  const v2 = await f.must(add, { taskId: task.id, version: 1, dependsOn: [a.id, b.id] }, maker);
  expect(v2.blockedBy).toEqual([a.id, b.id]);

  failure(await f.run(remove("agent"), { taskId: task.id, version: v2.version, dependency: a.id } as never, stranger), "forbidden");
  failure(await f.run(remove("agent"), { taskId: task.id, version: 1, dependency: a.id } as never, maker), "version_conflict");
  failure(await f.run(remove("agent"), { taskId: task.id, version: v2.version, dependency: "999999" } as never, maker), "not_found");
  expect(await eventTypes(f.db, task.id)).toEqual(["created", "dependency_added"]);

  const v3 = (await f.must(remove("agent"), { taskId: task.id, version: v2.version, dependency: a.id } as never, maker)) as unknown as tasks.Task;
  expect(v3).toMatchObject({ version: v2.version + 1, dependsOn: [b.id], blockedBy: [b.id] });
  const v4 = (await f.must(remove("supervisor"), { taskId: task.id, version: v3.version, dependency: b.id } as never, boss)) as unknown as tasks.Task;
  expect(v4).toMatchObject({ dependsOn: [], blockedBy: [] });
  const events = await eventsOf(f.db, task.id);
  expect(events.map((e) => e.type)).toEqual(["created", "dependency_added", "dependency_removed", "dependency_removed"]);
  expect(events[2]!.payload).toMatchObject({ removed: a.id, dependsOn: [b.id], blockedBy: [b.id] });
  // Unblocked now: claimable.
  expect(await f.must(claim, { taskId: task.id, version: v4.version }, holder)).toMatchObject({ status: "claimed" });
  // The fold replays the removals to the same dependencies as the row.
  const folded = tasks.foldEvents(await tasks.taskHistory(f.db, task.id));
  expect(folded.dependsOn).toEqual((await taskRow(f.db, task.id)).dependsOn);
});
