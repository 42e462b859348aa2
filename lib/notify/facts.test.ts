import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, complete, forceRelease, start, type ActorRef, type Task } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf } from "@/test/inspect";
import { notificationFacts } from "./facts";

// The rules of browser notifications, against the log itself: one fact per event for the
// person it concerns, none for the actor who did it or anyone else.

let f: EngineFixture;
let agent: ActorRef;
let pia: ActorRef;
let olu: ActorRef;
let boss: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  agent = await f.actor("Bot", "agent");
  pia = await f.actor("Pia");
  olu = await f.actor("Olu");
  boss = await f.actor("Sue");
  await f.queue("notify-review", { review: "everyone", leaseSeconds: 30 });
});
afterAll(async () => {
  await f?.close();
});

const at = (t: Task) => ({ taskId: t.id, version: t.version });
const idsOf = async (task: Task) => (await eventsOf(f.db, task.id)).map((e) => e.id.toString());
const staff = (actor: ActorRef) => ({ actorId: actor.id, role: "staff" as const });

describe("notification facts", () => {
  test("a submission is a review waiting for whoever may review it: not its submitter, not a holder", async () => {
    let task = await f.task("needs eyes", { queue: "notify-review" });
    task = await f.must(claim, at(task), olu);
    const { release } = await import("@/lib/tasks");
    task = await f.must(release, at(task), olu);
    task = await f.must(claim, at(task), agent);
    task = await f.must(start, at(task), agent);
    task = await f.must(complete, at(task), agent);
    const ids = await idsOf(task);
    const facts = await notificationFacts(f.db, staff(pia), ids);
    expect(facts).toEqual([{ eventId: ids.at(-1), kind: "review_waiting", taskId: task.id, title: "A review waits for you", body: expect.stringContaining("needs eyes") }]);
    expect(await notificationFacts(f.db, staff(olu), ids)).toEqual([]); // held an attempt
    expect(await notificationFacts(f.db, staff(agent), ids)).toEqual([]); // its own act
  });

  test("a claim after a person's lease lapsed is their task taken over; a force release is theirs taken back", async () => {
    let task = await f.task("mine", { queue: "notify-review" });
    task = await f.must(claim, at(task), pia);
    f.clock.advance(31);
    task = await f.must(claim, at(task), agent);
    let ids = await idsOf(task);
    const takeover = await notificationFacts(f.db, staff(pia), ids);
    expect(takeover).toMatchObject([{ kind: "takeover", taskId: task.id, body: expect.stringContaining("Bot took over") }]);
    expect(takeover[0]!.eventId).toBe(ids.at(-1));
    expect(await notificationFacts(f.db, staff(olu), ids)).toEqual([]);

    const other = await f.must(claim, at(await f.task("held", { queue: "notify-review" })), pia);
    await f.must(forceRelease, at(other), boss);
    ids = await idsOf(other);
    expect(await notificationFacts(f.db, staff(pia), ids)).toMatchObject([{ kind: "takeover", title: "Your task was taken back" }]);
    expect(await notificationFacts(f.db, staff(olu), ids)).toEqual([]);
  });

  test("ids it does not know, or of other types, are no fact", async () => {
    const task = await f.task("plain", { queue: "notify-review" });
    expect(await notificationFacts(f.db, staff(pia), [...(await idsOf(task)), "999999999"])).toEqual([]);
    expect(await notificationFacts(f.db, staff(pia), [])).toEqual([]);
  });
});
