import { afterAll, beforeAll, expect, test } from "vitest";
import { setQueueSettings, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { queueEvents, queueRow } from "@/test/inspect";

let f: EngineFixture;
let sara: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  sara = await f.actor("Sara");
});
afterAll(async () => {
  await f?.close();
});

test("a settings change is recorded as settings_changed: who, and each value from → to", async () => {
  await f.queue("mail");
  await f.must(setQueueSettings, { queue: "mail", leaseSeconds: 45, maxFailures: 3 }, sara);
  expect(await queueRow(f.db, "mail")).toMatchObject({ leaseSeconds: 45, maxFailures: 3 });
  const [event, ...more] = await queueEvents(f.db, "mail", "settings_changed");
  expect(more).toEqual([]);
  // maxFailures was already 3 (the default): only the lease is a change.
  expect(event).toMatchObject({ taskId: null, actorId: sara.id, payload: { changes: { leaseSeconds: { from: 120, to: 45 } } } });
});

test("asking for the values already set changes nothing and writes no event", async () => {
  await f.queue("same");
  await f.must(setQueueSettings, { queue: "same", leaseSeconds: 30 }, sara);
  const before = await queueRow(f.db, "same");
  await f.must(setQueueSettings, { queue: "same", leaseSeconds: 30, maxFailures: before.maxFailures }, sara);
  expect(await queueRow(f.db, "same")).toEqual(before);
  expect(await queueEvents(f.db, "same", "settings_changed")).toHaveLength(1);
});

test("a refused value changes nothing and writes no event", async () => {
  const result = await f.run(setQueueSettings, { queue: "mail", leaseSeconds: 4 }, sara);
  expect(result).toMatchObject({ ok: false, error: { code: "invalid_request", field: "leaseSeconds" } });
  expect(await queueRow(f.db, "mail")).toMatchObject({ leaseSeconds: 45 });
  expect(await queueEvents(f.db, "mail", "settings_changed")).toHaveLength(1);
});
