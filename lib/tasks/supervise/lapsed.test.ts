import { afterAll, beforeAll, expect, test } from "vitest";
import { claim, start } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { readLapsed } from "./lapsed";

// Lapsed holdings are a read (lease_until < now()): nothing is written when a lease runs
// out. The database's now() decides, so the fixture's clock is set in the past to claim.

let f: EngineFixture;
beforeAll(async () => {
  f = await engineFixture();
});
afterAll(async () => {
  await f?.close();
});

test("a held task whose lease is past is listed with its owner until someone takes it; a running lease is the next lapse", async () => {
  const agent = await f.actor("robot-1", "agent");
  const bilal = await f.actor("Bilal");
  await f.queue("lapsing", { leaseSeconds: 60 });
  f.clock.set(new Date(Date.now() - 10 * 60_000)); // ten minutes ago: a 60 s lease is long past
  const old = await f.task("left behind", { queue: "lapsing" });
  const claimed = await f.must(claim, { taskId: old.id, version: old.version }, agent);
  const started = await f.must(start, { taskId: claimed.id, version: claimed.version }, agent);
  f.clock.set(new Date(Date.now() + 60 * 60_000)); // an hour ahead: this lease still runs
  const fresh = await f.task("still running", { queue: "lapsing" });
  const running = await f.must(claim, { taskId: fresh.id, version: fresh.version }, bilal);

  const lapsed = await readLapsed(f.db);
  expect(lapsed.tasks.map((t) => [t.id, t.status, t.owner.name])).toEqual([[old.id, "started", "robot-1"]]);
  expect(lapsed.count).toBe(1);
  expect(lapsed.tasks[0]!.leaseUntil.getTime()).toBe(started.leaseUntil!.getTime());
  expect(lapsed.nextLapseAt?.getTime()).toBe(running.leaseUntil!.getTime());

  // Someone takes it over: no longer lapsed (the claim writes the lapse and a new lease).
  f.clock.set(new Date());
  await f.must(claim, { taskId: started.id, version: started.version }, bilal);
  expect((await readLapsed(f.db)).tasks).toEqual([]);
});
