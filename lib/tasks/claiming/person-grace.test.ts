import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, claimNext, heldLeases, sweepExpiredLeases, taskReadiness, type ActorRef, type Task } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";

// A person's lapsed task (docs/contract.md, docs/attention.md "A person's lease"): people may claim
// it at once; agents only once the queue's personGraceSeconds have passed — by the targeted
// claim and by claim-next alike, with readiness code person_grace in between.

let f: EngineFixture;
let dana: ActorRef;
let chen: ActorRef;
let bot: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  dana = await f.actor("Dana");
  chen = await f.actor("Chen");
  bot = await f.actor("Bot", "agent");
});
afterAll(async () => {
  await f?.close();
});

const at = (t: Task) => ({ taskId: t.id, version: t.version });

describe("person grace", () => {
  test("an agent is refused a person's lapsed task inside the grace, with readiness person_grace, and takes it after", async () => {
    const queue = await f.queue("grace-targeted", { leaseSeconds: 120, personGraceSeconds: 300 });
    const held = await f.must(claim, at(await f.task("pets.md", { queue })), dana);
    f.clock.advance(121); // lapsed a second ago
    const refused = await f.run(claim, at(held), bot);
    expect(refused.ok || refused.error.code).toBe("not_ready");
    const readiness = await f.must(taskReadiness, { taskId: held.id }, bot);
    expect(readiness.reasons.map((r) => r.code)).toEqual(["person_grace"]);
    expect(readiness.claimableAt?.toISOString()).toBe(new Date(held.leaseUntil!.getTime() + 300_000).toISOString());
    expect((await f.must(taskReadiness, { taskId: held.id }, chen)).claimable).toBe(true);
    expect(await f.must(claimNext, { queue }, bot)).toBeNull(); // claim-next steps over it
    f.clock.advance(300);
    expect((await f.must(claim, at(held), bot)).owner?.id).toBe(bot.id);
  });

  test("a person takes a colleague's lapsed task at once; claim-next hands an agent's lapsed task to agents at once", async () => {
    const queue = await f.queue("grace-people", { leaseSeconds: 60, personGraceSeconds: 300 });
    const danas = await f.must(claim, at(await f.task("hers", { queue })), dana);
    f.clock.advance(61);
    expect((await f.must(claimNext, { queue }, chen))?.id).toBe(danas.id);
    const bots = await f.must(claim, at(await f.task("its", { queue })), bot);
    f.clock.advance(61);
    const other = await f.actor("Bot two", "agent");
    expect((await f.must(claimNext, { queue }, other))?.id).toBe(bots.id);
  });

  test("the sweep leaves a person's lapsed lease alone inside the grace, so no agent takes it from the queue, and sweeps it after", async () => {
    const queue = await f.queue("grace-sweep", { leaseSeconds: 60, personGraceSeconds: 300 });
    const danas = await f.must(claim, at(await f.task("swept hers", { queue })), dana);
    const bots = await f.must(claim, at(await f.task("swept its", { queue })), bot);
    f.clock.advance(61);
    const supervisor = await f.actor("Sweeper");
    expect((await f.must(sweepExpiredLeases, { queue }, supervisor)).expired).toBe(1); // the agent's only
    expect((await f.must(claimNext, { queue }, bot))?.id).toBe(bots.id);
    expect(await f.must(claimNext, { queue }, bot)).toBeNull();
    expect((await f.must(taskReadiness, { taskId: danas.id }, bot)).reasons.map((r) => r.code)).toEqual(["person_grace"]);
    f.clock.advance(300);
    expect((await f.must(sweepExpiredLeases, { queue }, supervisor)).expired).toBe(2); // hers, and the agent's second lapse
    expect((await f.must(claimNext, { queue }, bot))?.id).toBe(danas.id);
  });

  test("a grace of 0 follows the lease alone", async () => {
    const queue = await f.queue("grace-none", { leaseSeconds: 60, personGraceSeconds: 0 });
    const held = await f.must(claim, at(await f.task("no grace", { queue })), dana);
    f.clock.advance(61);
    expect((await f.must(claimNext, { queue }, bot))?.id).toBe(held.id);
  });
});

describe("presence renewal follows personIdleSeconds", () => {
  test("the keeper's renewal renews a lease only in a queue whose personIdleSeconds exceeds the person's time away; 0 never", async () => {
    const long = await f.queue("idle-long", { leaseSeconds: 120, personIdleSeconds: 1800 });
    const none = await f.queue("idle-none", { leaseSeconds: 120, personIdleSeconds: 0 });
    const kept = await f.must(claim, at(await f.task("kept", { queue: long })), dana);
    const left = await f.must(claim, at(await f.task("left", { queue: none })), dana);
    f.clock.advance(60); // due: a third has passed
    const held = await f.must(heldLeases, { renew: true, idleSeconds: 600 }, dana);
    const until = new Map(held.map((h) => [h.task.id, h.task.leaseUntil!.getTime()]));
    expect(until.get(kept.id)).toBe(kept.leaseUntil!.getTime() + 60_000);
    expect(until.get(left.id)).toBe(left.leaseUntil!.getTime());
    expect(held.map((h) => [h.task.id, h.personIdleSeconds])).toEqual([[kept.id, 1800], [left.id, 0]]);
    f.clock.advance(60);
    const away = await f.must(heldLeases, { renew: true, idleSeconds: 1800 }, dana); // away as long as the queue allows: not renewed
    expect(away.find((h) => h.task.id === kept.id)!.task.leaseUntil!.getTime()).toBe(kept.leaseUntil!.getTime() + 60_000);
  });
});
