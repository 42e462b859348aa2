import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { authenticateToken, createAgentToken } from "@/lib/auth/tokens";
import { seedDemo } from "@/lib/demo";
import { claim, claimNext, ManualClock, complete, createActor, createTask, failTask, perform, renew, setQueueSettings, start, type ActorRef, type Task } from "@/lib/tasks";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { readFleet } from "./fleet";
import { makeQueue } from "@/test/queues";

let database: TestDatabase;
let creator: ActorRef;
beforeAll(async () => {
  database = await freshDatabase();
  creator = await createActor(database.db, "user", "Sara");
  await makeQueue(database.db, "fleet");
  await perform(setQueueSettings, { queue: "fleet", maxFailures: 5 }, { db: database.db, actor: creator });
});
afterAll(async () => {
  await database?.close();
});

async function must<T>(result: Promise<{ ok: true; value: T } | { ok: false; error: { message: string } }>): Promise<T> {
  const r = await result;
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}
const as = (actor: ActorRef, instance?: string) => ({ db: database.db, actor, ...(instance ? { instance } : {}) });
const task = (title: string) => must(perform(createTask, { title, queue: "fleet" }, as(creator)));

describe("readFleet", () => {
  test("a token's agent: its instances, tasks held now, last sign of life and its 24 h of done, failed and lapsed", async () => {
    const created = await createAgentToken(database.db, { name: "crawler" });
    const agent = (await authenticateToken(database.db, created.token))!.actor;
    const other = await createActor(database.db, "agent", "rival");

    const [one, two, three, four] = [await task("one"), await task("two"), await task("three"), await task("four")];
    const started = await must(perform(claimNext, { queue: "fleet", start: true }, as(agent, "host-a:101")));
    expect(started!.id).toBe(one.id);
    await must(perform(complete, { taskId: one.id, version: started!.version }, as(agent, "host-a:101")));
    const failing = await must(perform(claim, { taskId: two.id, version: 1 }, as(agent, "host-b:202")));
    await must(perform(failTask, { taskId: two.id, version: failing.version, reason: "no" }, as(agent, "host-b:202")));
    // A lease that lapses and is taken over: a lapse of the agent's, written by the system.
    const lapsing = await must(perform(claim, { taskId: three.id, version: 1 }, as(agent)));
    await database.db.execute(sql`UPDATE tasks SET lease_until = now() - interval '1 second' WHERE id = ${three.id}::bigint`);
    await must(perform(claim, { taskId: three.id, version: lapsing.version }, as(other)));
    const held: Task = await must(perform(claim, { taskId: four.id, version: 1 }, as(agent, "host-b:202")));
    await must(perform(renew, { taskId: four.id, version: held.version }, as(agent, "host-b:202")));

    const fleet = await readFleet(database.db);
    const crawler = fleet.agents.find((a) => a.actor.id === agent.id)!;
    expect(crawler.tokens.map((t) => t.name)).toEqual(["crawler"]);
    expect(crawler.instances.map((i) => i.instance)).toEqual(["host-b:202", "host-a:101"]);
    expect(crawler.held.map((h) => [h.id, h.status])).toEqual([[four.id, "claimed"]]);
    expect(crawler.heldCount).toBe(1);
    expect(crawler.lastSeen?.type).toBe("heartbeat");
    expect(crawler.day).toEqual({ done: 1, failed: 1, lapsed: 1 });
    const rival = fleet.agents.find((a) => a.actor.id === other.id)!;
    expect(rival).toMatchObject({ tokens: [], heldCount: 1, day: { done: 0, failed: 0, lapsed: 0 } });
    expect(fleet.agents[0]!.actor.id).toBe(agent.id); // the most recent sign of life first
  });

  test("a held task renewed without progress shows the count and the queue's limit (docs/leases.md); none where the queue sets none", async () => {
    const agent = await createActor(database.db, "agent", "stuck-bot");
    await makeQueue(database.db, "fleet-strict", { maxRenewalsWithoutProgress: 5 });
    const strict = await must(perform(createTask, { title: "stuck", queue: "fleet-strict" }, as(creator)));
    const held = await must(perform(claim, { taskId: strict.id, version: 1 }, as(agent)));
    for (let i = 0; i < 2; i++) await must(perform(renew, { taskId: strict.id, version: held.version }, as(agent)));
    const plain = await task("unbounded");
    const other = await must(perform(claim, { taskId: plain.id, version: 1 }, as(agent)));
    await must(perform(renew, { taskId: plain.id, version: other.version }, as(agent)));
    const mine = (await readFleet(database.db)).agents.find((a) => a.actor.id === agent.id)!;
    expect(Object.fromEntries(mine.held.map((h) => [h.title, h.withoutProgress]))).toEqual({ stuck: { renewals: 2, max: 5 }, unbounded: null });
  });

  test("an agent whose newest event is a claim with start was last seen starting", async () => {
    const starter = await createActor(database.db, "agent", "starter");
    await task("started in one act");
    await must(perform(claimNext, { queue: "fleet", start: true }, as(starter)));
    const fleet = await readFleet(database.db);
    expect(fleet.agents.find((a) => a.actor.id === starter.id)?.lastSeen?.type).toBe("started");
  });

  test("live means a sign of life within the lease: an instance silent for longer than its queue's lease is not live", async () => {
    await makeQueue(database.db, "fleet-short", { leaseSeconds: 60 });
    const agent = await createActor(database.db, "agent", "silent-one");
    const clock = new ManualClock();
    clock.set(new Date(Date.now() - 5 * 60_000)); // its last word, five minutes ago: past a 60 s lease
    const quiet = await must(perform(createTask, { title: "quiet", queue: "fleet-short" }, as(creator)));
    await must(perform(claim, { taskId: quiet.id, version: 1 }, { ...as(agent, "host-c:303"), clock }));
    const loud = await must(perform(createTask, { title: "loud", queue: "fleet" }, as(creator)));
    const busy = await createActor(database.db, "agent", "busy-one");
    await must(perform(claim, { taskId: loud.id, version: 1 }, as(busy, "host-d:404")));

    const fleet = await readFleet(database.db);
    const [silent] = fleet.agents.find((a) => a.actor.id === agent.id)!.instances;
    expect(silent!.instance).toBe("host-c:303");
    expect(silent!.liveUntil!.getTime()).toBe(silent!.lastSeenAt.getTime() + 60_000);
    expect(silent!.liveUntil!.getTime()).toBeLessThan(Date.now());
    const [working] = fleet.agents.find((a) => a.actor.id === busy.id)!.instances;
    expect(working!.liveUntil!.getTime()).toBeGreaterThan(Date.now());
  });

  test("quieter than the recent window: its last sign of life is its newest outcome, or its token's last use if newer", async () => {
    const quiet = await createActor(database.db, "agent", "quiet-one");
    const at = (minutesAgo: number) => { const clock = new ManualClock(); clock.set(new Date(Date.now() - minutesAgo * 60_000)); return clock; };
    const [done, failing] = [await task("done long ago"), await task("failed long ago")];
    const held = await must(perform(claim, { taskId: done.id, version: 1 }, { ...as(quiet, "host-q:1"), clock: at(45) }));
    const started = await must(perform(start, { taskId: done.id, version: held.version }, { ...as(quiet, "host-q:1"), clock: at(44.9) }));
    await must(perform(complete, { taskId: done.id, version: started.version }, { ...as(quiet, "host-q:1"), clock: at(44.8) }));
    const trying = await must(perform(claim, { taskId: failing.id, version: 1 }, { ...as(quiet, "host-q:1"), clock: at(30.5) }));
    await must(perform(failTask, { taskId: failing.id, version: trying.version, reason: "no" }, { ...as(quiet, "host-q:1"), clock: at(30) }));

    const created = await createAgentToken(database.db, { name: "dozing" });
    const dozing = (await authenticateToken(database.db, created.token))!.actor;
    await database.db.execute(sql`UPDATE agent_tokens SET last_used_at = now() - interval '20 minutes' WHERE actor_id = ${dozing.id}::uuid`);

    const fleet = await readFleet(database.db);
    const q = fleet.agents.find((a) => a.actor.id === quiet.id)!;
    expect(q.lastSeen?.type).toBe("failed");
    expect(Math.round((Date.now() - q.lastSeen!.at.getTime()) / 60_000)).toBe(30);
    expect(q.instances).toEqual([]); // its instance spoke 30 minutes ago: outside the window
    expect(q.day).toEqual({ done: 1, failed: 1, lapsed: 0 });
    const d = fleet.agents.find((a) => a.actor.id === dozing.id)!;
    expect(d.lastSeen?.type).toBe("token_used");
    expect(Math.round((Date.now() - d.lastSeen!.at.getTime()) / 60_000)).toBe(20);
    const order = fleet.agents.map((a) => a.actor.id);
    expect(order.indexOf(dozing.id)).toBeLessThan(order.indexOf(quiet.id)); // 20 minutes ago before 30
  });

  test("an agent with neither a token nor an event is not listed; a token never used is", async () => {
    const idle = await createActor(database.db, "agent", "never-worked");
    await createAgentToken(database.db, { name: "unused" });
    const fleet = await readFleet(database.db);
    expect(fleet.agents.map((a) => a.actor.name)).not.toContain(idle.name);
    expect(fleet.agents.find((a) => a.actor.name === "unused")).toMatchObject({ lastSeen: null, instances: [], heldCount: 0 });
    expect(fleet.tokens.map((t) => t.name)).toEqual(expect.arrayContaining(["crawler", "unused"]));
  });

  test("the demo's own agents show up, with their history", { timeout: 60_000 }, async () => {
    const demo = await freshDatabase();
    try {
      await seedDemo(demo.db);
      const fleet = await readFleet(demo.db);
      const bots = fleet.agents.filter((a) => a.actor.name.startsWith("import-bot-"));
      expect(bots.map((b) => b.actor.name).sort()).toEqual(["import-bot-1", "import-bot-2"]);
      for (const bot of bots) {
        expect(bot.lastSeen).not.toBeNull();
        expect(bot.day.done).toBeGreaterThan(0);
      }
    } finally {
      await demo.close();
    }
  });
});
