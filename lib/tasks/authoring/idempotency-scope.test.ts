import { afterAll, beforeAll, expect, test } from "vitest";
import { createTaskOnce, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf } from "@/test/inspect";

// An idempotency key is the creator's own: a squatter who guesses (or reads) the key another
// agent will use cannot pre-create "its" task — with the same fields the victim would get the
// squatter's task back as if it were its own (a task the squatter may edit), with others a
// conflict that blocks the victim's create for good.

let f: EngineFixture;
let victim: ActorRef;
let squatter: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  victim = await f.actor("victim-agent", "agent");
  squatter = await f.actor("squatter-agent", "agent");
  await f.queue("billing");
});
afterAll(async () => {
  await f?.close();
});

test("the same key from two creators makes two tasks; each creator's retry finds its own", async () => {
  const input = { title: "Charge order 81", queue: "billing", payload: { order: 81 }, idempotencyKey: "charge-81" };
  const planted = await f.must(createTaskOnce, input, squatter);
  const mine = await f.must(createTaskOnce, input, victim);
  expect(mine.created).toBe(true);
  expect(mine.task.id).not.toBe(planted.task.id);
  expect((await eventsOf(f.db, mine.task.id))[0]).toMatchObject({ type: "created", actorId: victim.id });

  const retry = await f.must(createTaskOnce, input, victim);
  expect(retry).toMatchObject({ created: false, task: { id: mine.task.id } });
  expect(await f.must(createTaskOnce, input, squatter)).toMatchObject({ created: false, task: { id: planted.task.id } });
  // A different title under the squatter's key is the squatter's conflict, not the victim's.
  expect(await f.must(createTaskOnce, { ...input, title: "Charge order 81 (2)", idempotencyKey: "charge-82" }, victim)).toMatchObject({ created: true });
  expect(await f.run(createTaskOnce, { ...input, title: "other" }, squatter)).toMatchObject({ ok: false, error: { code: "idempotency_conflict" } });
});
