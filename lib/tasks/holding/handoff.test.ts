import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  claim, claimBatch, claimNext, complete, failTask, foldEvents, perform, release, renew, setQueueSettings, sweepExpiredLeases,
  taskHistory, type ActorRef,
} from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf, eventTypes, taskRow } from "@/test/inspect";

// Issue 12 in the engine: who may claim, hand-offs, progress, the attempt ceiling and the
// calling instance — on the injected clock, so lapses need no sleeping.

let f: EngineFixture;
let amal: ActorRef;
let bilal: ActorRef;
let bot: ActorRef;
let sara: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  bilal = await f.actor("Bilal");
  bot = await f.actor("agent-7", "agent");
  sara = await f.actor("Sara");
});
afterAll(async () => {
  await f?.close();
});

describe("claimants", () => {
  test("an agent may not claim a people queue's task — targeted, next, batch, lapsed or not; a person may", async () => {
    const queue = await f.queue("errands");
    await f.must(setQueueSettings, { queue, claimants: "people" }, sara);
    const task = await f.task("Email the landlord", { queue });
    for (const result of [
      await f.run(claim, { taskId: task.id, version: 1 }, bot),
      await f.run(claimNext, { queue }, bot),
      await f.run(claimBatch, { queue, limit: 5 }, bot),
    ]) {
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error.code).toBe("forbidden");
        expect(result.error.message).toMatch(/claimants: people/);
      }
    }
    const claimed = await f.must(claimNext, { queue }, amal);
    expect(claimed?.owner?.id).toBe(amal.id);
    f.clock.advance(121); // Amal's lease lapses: still not the agent's to take
    const lapsed = await f.run(claim, { taskId: task.id, version: 2 }, bot);
    expect(lapsed.ok || lapsed.error.code).toBe("forbidden");
    expect(await f.must(claimNext, { queue }, bot).catch((e: Error) => e.message)).toMatch(/forbidden/);
    expect((await taskRow(f.db, task.id)).ownerId).toBe(amal.id);
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed"]);
  });

  test("people may not claim from an agents queue; an unknown kind is refused naming the field", async () => {
    const queue = await f.queue("crawl");
    await f.must(setQueueSettings, { queue, claimants: "agents" }, sara);
    const task = await f.task("Fetch page", { queue });
    const refused = await f.run(claim, { taskId: task.id, version: 1 }, amal);
    expect(!refused.ok && refused.error.message).toMatch(/agents only/);
    expect((await f.must(claimNext, { queue }, bot))?.id).toBe(task.id);
    const bad = await f.run(setQueueSettings, { queue, claimants: "robots" as never }, sara);
    expect(!bad.ok && bad.error).toMatchObject({ code: "invalid_request", field: "claimants" });
  });
});

describe("hand-offs and progress", () => {
  test("a release's note reaches the next claimant with its author; a fail's note replaces it", async () => {
    const queue = "notes";
    const task = await f.task("Draft the report", { queue });
    const mine = await f.must(claim, { taskId: task.id, version: 1 }, amal);
    const note = { summary: "Intro and data done", next: "Write the conclusion", artifacts: ["https://docs.test/report"] };
    const released = await f.must(release, { taskId: task.id, version: mine.version, handoff: note }, amal);
    expect(released.handoff).toMatchObject({ ...note, by: amal });
    const next = await f.must(claimNext, { queue }, bilal);
    expect(next?.handoff).toMatchObject({ ...note, by: { id: amal.id, name: "Amal", kind: "user" } });
    expect(next?.handoff?.at).toEqual(released.updatedAt);

    const failed = await f.must(failTask, { taskId: task.id, version: next!.version, reason: "no data", handoff: { summary: "Data source is down" } }, bilal);
    expect(failed.handoff).toMatchObject({ summary: "Data source is down", next: null, artifacts: [], by: { id: bilal.id } });
    const events = await eventsOf(f.db, task.id);
    expect(events.find((e) => e.type === "released")?.payload).toMatchObject({ handoff: { summary: note.summary } });
    expect(events.find((e) => e.type === "failed")?.payload).toMatchObject({ handoff: { summary: "Data source is down" } });
  });

  test("a hand-off over its limits is refused, naming the field, and changes nothing", async () => {
    const task = await f.task("Long notes", { queue: "notes-limits" });
    const held = await f.must(claim, { taskId: task.id, version: 1 }, amal);
    const cases = [
      [{ summary: "" }, "handoff.summary"],
      [{ summary: "x".repeat(2001) }, "handoff.summary"],
      [{ summary: "ok", next: "n".repeat(2001) }, "handoff.next"],
      [{ summary: "ok", artifacts: Array.from({ length: 21 }, () => "a") }, "handoff.artifacts"],
      [{ summary: "ok", artifacts: ["a".repeat(501)] }, "handoff.artifacts.0"],
    ] as [{ summary: string; next?: string; artifacts?: string[] }, string][];
    for (const [handoff, field] of cases) {
      const result = await f.run(release, { taskId: task.id, version: held.version, handoff }, amal);
      expect(!result.ok && result.error).toMatchObject({ code: "invalid_request", field });
    }
    expect((await taskRow(f.db, task.id)).status).toBe("claimed");
  });

  test("progress is the current attempt's; a lapse after progress writes the system's hand-off", async () => {
    const queue = "progress";
    const task = await f.task("Migrate mailbox", { queue });
    const held = await f.must(claim, { taskId: task.id, version: 1 }, bot, undefined);
    expect(held.progress).toBeNull();
    f.clock.advance(10);
    const beat = await f.must(renew, { taskId: task.id, version: held.version, progress: "copied 300 of 1000" }, bot);
    expect(beat.progress).toEqual({ value: "copied 300 of 1000", at: f.clock.time });
    f.clock.advance(121);
    const taken = await f.must(claimNext, { queue }, bilal);
    expect(taken?.progress).toBeNull();
    expect(taken?.handoff).toMatchObject({ summary: "copied 300 of 1000", next: null, by: { kind: "system", name: "system" } });
    const lapse = (await eventsOf(f.db, task.id)).find((e) => e.type === "lease_expired");
    expect(lapse?.payload).toMatchObject({ handoff: { summary: "copied 300 of 1000" } });

    // The sweep writes it too; JSON progress becomes its text.
    await f.must(renew, { taskId: task.id, version: taken!.version, progress: { copied: 600 } }, bilal);
    f.clock.advance(121 + 300); // and past the person grace, which the sweep honours
    await f.must(sweepExpiredLeases, { queue }, sara);
    expect((await taskRow(f.db, task.id)).handoff).toMatchObject({ summary: '{"copied": 600}', by: { kind: "system" } });
    // A lapse without progress leaves the previous note as it was.
    const again = await f.must(claimNext, { queue }, amal);
    f.clock.advance(121);
    await f.must(claimNext, { queue }, bilal);
    expect((await taskRow(f.db, task.id)).handoff).toMatchObject({ summary: '{"copied": 600}' });
    expect(again).not.toBeNull();
    const history = await taskHistory(f.db, task.id);
    const row = await taskRow(f.db, task.id);
    expect(foldEvents(history)).toMatchObject({ handoff: row.handoff, handoffAt: row.handoffAt, version: row.version });
  });
});

describe("the attempt ceiling", () => {
  test("a heartbeat past claimed at + maxAttemptSeconds is attempt_limit; the lapse is a strike; the third goes to the inbox", async () => {
    const queue = await f.queue("spinning");
    await f.must(setQueueSettings, { queue, maxAttemptSeconds: 300, leaseSeconds: 120 }, sara);
    const task = await f.task("Spin", { queue });
    for (let strike = 1; strike <= 3; strike++) {
      const held = await f.must(claimNext, { queue, start: true }, bot);
      expect(held?.id).toBe(task.id);
      f.clock.advance(100);
      const renewed = await f.must(renew, { taskId: task.id, version: held!.version }, bot); // lease to 220 s: within 300
      f.clock.advance(90);
      const refused = await f.run(renew, { taskId: task.id, version: held!.version, progress: `round ${strike}` }, bot); // 190 + 120 > 300
      expect(!refused.ok && refused.error.code).toBe("attempt_limit");
      // The lease was not extended, and the refused progress was not taken.
      expect((await taskRow(f.db, task.id))).toMatchObject({ leaseUntil: renewed.leaseUntil, progress: null, attemptLimited: true });
      const again = await f.run(renew, { taskId: task.id, version: held!.version }, bot);
      expect(!again.ok && again.error.code).toBe("attempt_limit");
      // The owner may still finish inside the lease; here it does not, and the lease lapses.
      f.clock.advance(31);
      if (strike < 3) {
        const next = await f.must(claimNext, { queue }, bot);
        expect(next).toMatchObject({ id: task.id, failureCount: strike });
        await f.must(release, { taskId: task.id, version: next!.version }, bot);
      } else {
        expect(await f.must(claimNext, { queue }, bot)).toBeNull();
      }
    }
    const row = await taskRow(f.db, task.id);
    expect(row).toMatchObject({ status: "escalated", failureCount: 3, ownerId: null, attemptLimited: false });
    const types = await eventTypes(f.db, task.id);
    expect(types.filter((t) => t === "attempt_limit_reached")).toHaveLength(3); // once per attempt, not per refusal
    expect(types.slice(-4)).toEqual(["attempt_limit_reached", "lease_expired", "failed", "escalated"]);
    const failed = (await eventsOf(f.db, task.id)).filter((e) => e.type === "failed").at(-1);
    expect(failed?.payload).toMatchObject({ attemptLimit: true, failureCount: 3 });
    expect(foldEvents(await taskHistory(f.db, task.id))).toMatchObject({ status: "escalated", version: row.version, failureCount: 3 });
  });

  test("a targeted claim of a struck lapse goes on at the version after the strike; the sweep strikes too", async () => {
    const queue = await f.queue("capped");
    await f.must(setQueueSettings, { queue, maxAttemptSeconds: 60, leaseSeconds: 50, maxFailures: 5 }, sara);
    const a = await f.task("A", { queue });
    const held = await f.must(claim, { taskId: a.id, version: 1 }, bot);
    f.clock.advance(20);
    expect((await f.run(renew, { taskId: a.id, version: held.version }, bot)).ok).toBe(false);
    f.clock.advance(31);
    const taken = await f.must(claim, { taskId: a.id, version: held.version }, amal);
    expect(taken).toMatchObject({ owner: { id: amal.id }, failureCount: 1, version: held.version + 2 });

    f.clock.advance(20);
    expect((await f.run(renew, { taskId: a.id, version: taken.version }, amal)).ok).toBe(false);
    f.clock.advance(31);
    expect(await f.must(sweepExpiredLeases, { queue }, sara)).toMatchObject({ expired: 1 });
    expect(await taskRow(f.db, a.id)).toMatchObject({ status: "queued", failureCount: 2 });
  });

  test("a ceiling out of range is refused naming the field; null lifts it", async () => {
    await f.queue("ceil");
    for (const maxAttemptSeconds of [59, 604_801, 1.5]) {
      const result = await f.run(setQueueSettings, { queue: "ceil", maxAttemptSeconds }, sara);
      expect(!result.ok && result.error).toMatchObject({ code: "invalid_request", field: "maxAttemptSeconds" });
    }
    expect(await f.must(setQueueSettings, { queue: "ceil", maxAttemptSeconds: 60 }, sara)).toMatchObject({ maxAttemptSeconds: 60 });
    expect(await f.must(setQueueSettings, { queue: "ceil", maxAttemptSeconds: null }, sara)).toMatchObject({ maxAttemptSeconds: null });
  });
});

describe("the calling instance", () => {
  test("claim, heartbeat and completion events record the Claimboard-Instance", async () => {
    const queue = "instances";
    const task = await f.task("Work", { queue });
    const as = (instance: string) => ({ db: f.db, actor: bot, clock: f.clock, instance });
    const held = await perform(claimNext, { queue, start: true }, as("host-a:101"));
    if (!held.ok || !held.value) throw new Error("no claim");
    await perform(renew, { taskId: task.id, version: held.value.version }, as("host-a:101"));
    await perform(complete, { taskId: task.id, version: held.value.version }, as("host-b:202"));
    const events = await eventsOf(f.db, task.id);
    expect(events.map((e) => [e.type, (e.payload as { instance?: string }).instance])).toEqual([
      ["created", undefined], ["claimed", "host-a:101"], ["heartbeat", "host-a:101"], ["completed", "host-b:202"],
    ]);
  });
});
