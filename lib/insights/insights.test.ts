import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, claimNext, complete, renew, setQueueSettings, start, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { queueEvents, queueRow } from "@/test/inspect";
import { EDGES_MS } from "./distributions";
import { applyRecommendedLease, readInsights, type Insights } from "./insights";

/** PostgreSQL's percentile_cont, written out: the oracle for the distributions. */
function percentileCont(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = p * (sorted.length - 1);
  const low = Math.floor(at);
  return sorted[low]! + (at - low) * ((sorted[Math.ceil(at)] ?? sorted[low]!) - sorted[low]!);
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

let f: EngineFixture;
let agent: ActorRef;
let other: ActorRef;
let sara: ActorRef;
let insights: Insights;

/**
 * Queue "mail" (lease 60 s), 40 tasks worked one after another, task i with known steps:
 * i s in the queue, claimed, 2 s to start, i s to a heartbeat, i s more to complete.
 * Queue "flaky" (lease 10 s): 10 tasks whose first claimant goes silent, each reclaimed
 * after its lease by another who completes it 1 s later.
 */
beforeAll(async () => {
  f = await engineFixture();
  agent = await f.actor("mail-bot", "agent");
  other = await f.actor("Amal");
  sara = await f.actor("Sara");
  await f.queue("mail");
  await f.must(setQueueSettings, { queue: "mail", leaseSeconds: 60 }, sara);
  await f.queue("flaky");
  // The lease alone (no presence, no grace for agents): a person's lapse is the lease's (docs/attention.md).
  await f.must(setQueueSettings, { queue: "flaky", leaseSeconds: 10, personIdleSeconds: 0, personGraceSeconds: 0 }, sara);
  for (const i of range(40)) {
    const task = await f.task(`mail ${i}`, { queue: "mail" });
    f.clock.advance(i);
    let t = await f.must(claim, { taskId: task.id, version: task.version }, agent);
    f.clock.advance(2);
    t = await f.must(start, { taskId: t.id, version: t.version }, agent);
    f.clock.advance(i);
    t = await f.must(renew, { taskId: t.id, version: t.version }, agent);
    f.clock.advance(i);
    await f.must(complete, { taskId: t.id, version: t.version }, agent);
  }
  for (const i of range(10)) {
    await f.task(`flaky ${i}`, { queue: "flaky" });
    await f.must(claimNext, { queue: "flaky", start: true }, other);
    f.clock.advance(11);
    const t = await f.must(claimNext, { queue: "flaky", start: true }, agent);
    f.clock.advance(1);
    await f.must(complete, { taskId: t!.id, version: t!.version }, agent);
  }
  f.clock.advance(1);
  insights = await readInsights(f.db, { queue: "mail", window: "1h", clock: f.clock });
});
afterAll(async () => {
  await f?.close();
});

describe("distributions from a synthetic history", () => {
  const expected = {
    time_in_queue: range(40).map((i) => i * 1000),
    claim_to_start: range(40).map(() => 2000),
    start_to_complete: range(40).map((i) => 2 * i * 1000),
    // claim → start (2 s), start → heartbeat (i s), heartbeat → complete (i s)
    heartbeat_interval: range(40).flatMap((i) => [2000, i * 1000, i * 1000]),
  };

  for (const [metric, samples] of Object.entries(expected)) {
    test(`${metric}: count, p50, p95, p99, max and histogram are those of the known steps`, () => {
      const got = insights.selected!.distributions[metric as keyof typeof expected]!;
      expect(got).toBeDefined();
      expect(got.count).toBe(samples.length);
      expect(got.p50).toBeCloseTo(percentileCont(samples, 0.5), 6);
      expect(got.p95).toBeCloseTo(percentileCont(samples, 0.95), 6);
      expect(got.p99).toBeCloseTo(percentileCont(samples, 0.99), 6);
      expect(got.max).toBe(Math.max(...samples));
      const counts = EDGES_MS.map((edge, i) => samples.filter((s) => s < edge && s >= (EDGES_MS[i - 1] ?? 0)).length);
      counts.push(samples.filter((s) => s >= EDGES_MS.at(-1)!).length);
      expect(got.counts).toEqual(counts);
    });
  }
});

describe("a claim that started in one act (one claimed event with started: true)", () => {
  test("is both facts: claim → start 0 s, and start → complete counts from it", async () => {
    // flaky: 20 claims with start, each one event; the 10 the agent took over completed 1 s later.
    const flaky = await readInsights(f.db, { queue: "flaky", window: "1h", clock: f.clock });
    const d = flaky.selected!.distributions;
    expect(d.claim_to_start).toMatchObject({ count: 20, max: 0 });
    expect(d.start_to_complete).toMatchObject({ count: 10, p50: 1000, max: 1000 });
  });
});

describe("the recommended lease", () => {
  test("mail: 3 × the p99 interval (39.81 s → 119.43 s), rounded up to 120 s: too short for 60 s", () => {
    expect(insights.selected!.evidence).toMatchObject({ currentSeconds: 60, intervals: 120, claims: 40, expiries: 0 });
    expect(insights.selected!.evidence.p99Ms).toBeCloseTo(39_810, 6);
    expect(insights.selected!.recommendation).toMatchObject({ seconds: 120, verdict: "too short" });
  });

  test("flaky: all 10 of the people's claims lapsed, so at least double the lease (20 s) whatever the agent's survivors show", () => {
    const flaky = insights.overview.find((o) => o.queue.name === "flaky")!;
    // Amal (a person) went silent on every claim; the agent that took over never lapsed.
    expect(flaky.populations.map((p) => [p.population, p.evidence.claims, p.evidence.expiries])).toEqual([["people", 10, 10], ["agents", 10, 0]]);
    // A tie in claims: the queue's lease follows the people's (they cannot ask for their own).
    expect(flaky.evidence).toMatchObject({ currentSeconds: 10, claims: 10, expiries: 10 });
    expect(flaky.recommendation).toMatchObject({ seconds: 20, verdict: "too short" });
  });

  test("while presence keeps a person's leases (personIdleSeconds > 0), their lapses are idleness, not counted against the lease", async () => {
    await f.must(setQueueSettings, { queue: "flaky", personIdleSeconds: 1800 }, sara);
    const again = await readInsights(f.db, { queue: "flaky", window: "1h", clock: f.clock });
    const flaky = again.overview.find((o) => o.queue.name === "flaky")!;
    expect(flaky.populations.map((p) => [p.population, p.evidence.claims, p.evidence.expiries])).toEqual([["people", 10, 0], ["agents", 10, 0]]);
    expect(flaky.recommendation.verdict).not.toBe("too short");
    await f.must(setQueueSettings, { queue: "flaky", personIdleSeconds: 0 }, sara);
  });

  test("a queue with no history has no recommendation", () => {
    const quiet = insights.overview.find((o) => o.queue.name === "default")!;
    expect(quiet.recommendation).toMatchObject({ seconds: null, verdict: "not enough data" });
  });

  test("applying it sets the lease and records who did it, with the evidence", async () => {
    await f.must(applyRecommendedLease, { queue: "mail", window: "1h" }, sara);
    expect(await queueRow(f.db, "mail")).toMatchObject({ leaseSeconds: 120 });
    const changes = await queueEvents(f.db, "mail", "settings_changed");
    expect(changes.at(-1)).toMatchObject({
      actorId: sara.id,
      payload: { changes: { leaseSeconds: { from: 60, to: 120 } }, reason: "recommended", window: "1h", evidence: { intervals: 120, claims: 40 } },
    });
    // From then on the claims and expiries before the change no longer count.
    f.clock.advance(1);
    const after = await readInsights(f.db, { queue: "mail", window: "1h", clock: f.clock });
    expect(after.selected!.evidence).toMatchObject({ currentSeconds: 120, intervals: 120, claims: 0, expiries: 0 });
    expect(after.selected!.recommendation).toMatchObject({ seconds: 120, verdict: "about right" });
    const none = await f.run(applyRecommendedLease, { queue: "default", window: "1h" }, sara);
    expect(none).toMatchObject({ ok: false, error: { code: "invalid_request" } });
  });
});

describe("series, claimants and queue facts", () => {
  test("the bars add up to the history, and each event lands in its own bar", () => {
    const total = (type: "claimed" | "completed" | "lease_expired") => insights.selected!.series.reduce((n, b) => n + b.counts[type], 0);
    expect(insights.selected!.series).toHaveLength(30); // 1 h in 2-minute bars
    expect([total("claimed"), total("completed"), total("lease_expired")]).toEqual([40, 40, 0]);
  });

  test("per claimant: the lapsed leases count against whoever let them lapse", async () => {
    const flaky = await readInsights(f.db, { queue: "flaky", window: "1h", clock: f.clock });
    const byName = Object.fromEntries(flaky.selected!.claimants.map((c) => [c.actor.name, c]));
    expect(byName["Amal"]).toMatchObject({ claims: 10, completed: 0, expiries: 10 });
    expect(byName["mail-bot"]).toMatchObject({ claims: 10, completed: 10, expiries: 0 });
  });

  test("settings changes are queue facts with who made them; an unknown queue is null", async () => {
    const facts = insights.selected!.facts;
    expect(facts.map((x) => [x.type, x.actor.name])).toEqual([["settings_changed", "Sara"]]);
    expect((await readInsights(f.db, { queue: "nope", window: "1h", clock: f.clock })).selected).toBeNull();
    // With no queue named it opens on the one that most needs attention: flaky's leases lapse.
    expect((await readInsights(f.db, { window: "1h", clock: f.clock })).selected!.queue.name).toBe("flaky");
  });
});

describe("people and agents apart", () => {
  // Last in the file: it moves the clock past the other tests' window.
  test("a queue used by both shows both, each with its own intervals and advice; a people queue shows people only", async () => {
    // "shared", lease 120 s: a person renews every 40 s (a browser at a third of the lease),
    // an agent every 5 s. Mixed, the p99 is a blend; apart, each kind gets its own lease.
    const person = await f.actor("Bea");
    await f.queue("shared");
    await f.must(setQueueSettings, { queue: "shared", leaseSeconds: 120 }, sara);
    await f.queue("desk");
    await f.must(setQueueSettings, { queue: "desk", leaseSeconds: 120, claimants: "people" }, sara);
    const work = async (queue: string, who: ActorRef, every: number, beats: number) => {
      const task = await f.task(`${queue} by ${who.name}`, { queue });
      let t = await f.must(claim, { taskId: task.id, version: task.version }, who);
      t = await f.must(start, { taskId: t.id, version: t.version }, who);
      for (let b = 0; b < beats; b++) {
        f.clock.advance(every);
        t = await f.must(renew, { taskId: t.id, version: t.version }, who);
      }
      await f.must(complete, { taskId: t.id, version: t.version }, who);
    };
    for (let i = 0; i < 8; i++) await work("shared", person, 40, 3);
    for (let i = 0; i < 12; i++) await work("shared", agent, 5, 3);
    for (let i = 0; i < 8; i++) await work("desk", person, 40, 3);
    f.clock.advance(1);
    const read = await readInsights(f.db, { queue: "shared", window: "1h", clock: f.clock });
    const shared = read.selected!;
    const [people, agents] = shared.populations;
    expect([people?.population, agents?.population]).toEqual(["people", "agents"]);
    expect(people!.distributions.heartbeat_interval).toMatchObject({ count: 40, p99: 40_000 });
    expect(agents!.distributions.heartbeat_interval).toMatchObject({ count: 60, p99: 5_000 });
    expect(shared.distributions.heartbeat_interval?.count).toBe(100);
    expect(people!.recommendation).toMatchObject({ seconds: 120, verdict: "about right" });
    expect(agents!.recommendation).toMatchObject({ seconds: 15, verdict: "too long" });
    // The queue's lease follows the kind that claims most: the agents here.
    expect(shared.recommendation).toEqual(agents!.recommendation);
    const desk = read.overview.find((o) => o.queue.name === "desk")!;
    expect(desk.populations.map((p) => p.population)).toEqual(["people"]);
    expect(desk.recommendation).toMatchObject({ seconds: 120 });
  });
});
