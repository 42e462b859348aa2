import { afterAll, beforeAll, expect, test } from "vitest";
import { claimNext, failTask, renew, setQueueSettings, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { readInsights } from "./insights";

// Insights count no_progress failures per agent (docs/leases.md): the rollups count failures by
// type, so these are read from the log.

let f: EngineFixture;
let bot: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  bot = await f.actor("stuck-bot", "agent");
  const sara = await f.actor("Sara");
  await f.queue("stalls");
  await f.must(setQueueSettings, { queue: "stalls", leaseSeconds: 60, maxRenewalsWithoutProgress: 1, maxFailures: 10 }, sara);
});
afterAll(async () => {
  await f?.close();
});

test("a claimant's failures say how many were renewals without progress", async () => {
  for (let i = 0; i < 3; i++) {
    await f.task(`stall ${i}`, { queue: "stalls" });
    const t = (await f.must(claimNext, { queue: "stalls", start: true }, bot))!;
    f.clock.advance(10);
    await f.must(renew, { taskId: t.id, version: t.version }, bot);
    f.clock.advance(10);
    if (i < 2) expect((await f.run(renew, { taskId: t.id, version: t.version }, bot)).ok).toBe(false);
    else await f.must(failTask, { taskId: t.id, version: t.version, reason: "gave up" }, bot);
  }
  f.clock.advance(1); // the window ends before now
  const insights = await readInsights(f.db, { queue: "stalls", window: "1h", clock: f.clock });
  expect(insights.selected!.claimants.find((c) => c.actor.name === "stuck-bot")).toMatchObject({ failed: 3, noProgress: 2 });
});
