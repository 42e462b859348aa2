import { afterAll, beforeAll, expect, test } from "vitest";
import { claimNext, createTask, perform, type ActorRef } from "@/lib/tasks";
import { nextDueIn } from "@/lib/tasks/claiming/next-due";
import type { TestDatabase } from "@/test/db";
import { makeQueue } from "@/test/queues";
import { collect, createTasks, hubFixture, lastTableCursor, until, type HubFixture } from "@/test/realtime/helpers";
import { ClaimWaits, type WaitEnd, type Waiter } from "./claim-waits";
import type { Hub } from "./hub";

// The process's waiting claims on a real hub over a real PostgreSQL: who is woken, how many,
// and when nothing but time makes a task claimable.

let fixture: HubFixture;
let database: TestDatabase;
let hub: Hub;
let actor: ActorRef;
let waits: ClaimWaits;
beforeAll(async () => {
  fixture = await hubFixture("waiter");
  ({ database, hub, actor } = fixture);
  waits = new ClaimWaits((queue) => nextDueIn(database.db, queue));
  hub.tap((events) => waits.onEvents(events));
  waits.caughtUp = () => hub.caughtUp;
});
afterAll(() => fixture?.close());

/** Settles once the hub has handed out everything committed so far. */
async function hubCaughtUp(): Promise<void> {
  const live = collect(hub);
  const last = await lastTableCursor(database);
  await perform(createTask, { title: "marker", queue: "markers" }, { db: database.db, actor }).catch(() => null);
  const after = await lastTableCursor(database);
  await until(() => live.cursors().includes(after) || live.last() === after || last === after, "the hub to read the marker");
  live.subscriber.close();
}

function watch(waiter: Waiter) {
  const seen: { end: WaitEnd | null } = { end: null };
  void waiter.ended.then((end) => (seen.end = end));
  return seen;
}

test("a task created while 5 wait wakes exactly one of them; three tasks wake three; nobody else's queue wakes anyone", async () => {
  await makeQueue(database.db, "markers");
  await makeQueue(database.db, "herd");
  const waiters = Array.from({ length: 5 }, () => waits.enter("herd"));
  const seen = waiters.map(watch);
  await createTasks(database.db, actor, 1, { queue: "elsewhere" });
  await hubCaughtUp();
  expect(seen.filter((s) => s.end !== null)).toHaveLength(0);

  await createTasks(database.db, actor, 1, { queue: "herd" });
  await until(() => seen.some((s) => s.end === "woken"), "a waiter to be woken");
  await hubCaughtUp();
  expect(seen.filter((s) => s.end === "woken")).toHaveLength(1);
  expect(seen[0]!.end).toBe("woken"); // the longest waiting first
  expect(waits.count("herd")).toBe(4);

  await createTasks(database.db, actor, 3, { queue: "herd" });
  await until(() => seen.filter((s) => s.end === "woken").length === 4, "three more wake-ups");
  await hubCaughtUp();
  expect(seen.filter((s) => s.end === "woken")).toHaveLength(4);
  waiters.forEach((w) => w.end("aborted"));
  expect(waits.count("herd")).toBe(0);
}, 120_000);

test("a claim's own event wakes nobody: only what may make a task claimable does", async () => {
  await makeQueue(database.db, "quiet");
  await createTasks(database.db, actor, 1, { queue: "quiet" });
  await hubCaughtUp();
  const waiter = waits.enter("quiet");
  const seen = watch(waiter);
  expect((await perform(claimNext, { queue: "quiet" }, { db: database.db, actor })).ok).toBe(true);
  await hubCaughtUp();
  expect(seen.end).toBeNull();
  waiter.end("aborted");
}, 60_000);

test("a notBefore coming due wakes a waiter by its queue's timer, with no read in between", async () => {
  await makeQueue(database.db, "later");
  const dueAt = Date.now() + 3_000;
  expect((await perform(createTask, { title: "due soon", queue: "later", notBefore: new Date(dueAt).toISOString() }, { db: database.db, actor })).ok).toBe(true);
  const timerWakes = waits.stats.timerWakes;
  // Its `created` may wake the waiter first (nothing is claimable yet): it waits again, as a claim does.
  let end = await waits.enter("later").ended;
  while (Date.now() < dueAt - 100) {
    expect(end).toBe("woken");
    end = await waits.enter("later").ended;
  }
  expect(end).toBe("woken");
  const late = Date.now() - dueAt; // woken at its notBefore (the timer's slack after it), not by a poll
  expect(late).toBeGreaterThanOrEqual(-100);
  expect(late).toBeLessThan(1_000);
  expect(waits.stats.timerWakes - timerWakes).toBe(1);
  const claimed = await perform(claimNext, { queue: "later" }, { db: database.db, actor });
  expect(claimed.ok && claimed.value?.title).toBe("due soon");
}, 60_000);

test("a clean stop lets every waiter go, and a waiter entered after it ends at once", async () => {
  const other = new ClaimWaits(async () => null);
  const a = other.enter("q1");
  const b = other.enter("q2");
  other.stop();
  expect(await a.ended).toBe("stopped");
  expect(await b.ended).toBe("stopped");
  expect(await other.enter("q1").ended).toBe("stopped");
  expect(other.count()).toBe(0);
});

test("a claim that found nothing stays known empty until its queue changes or a moment comes due; never with the hub behind", async () => {
  await makeQueue(database.db, "known");
  await makeQueue(database.db, "known-later");
  await hubCaughtUp();
  const waiter = waits.enter("known"); // the queue's first waiter: its probe learns that nothing is due
  const version = waits.version("known");
  waits.empties.remember("agent", "known", version);
  await until(() => waits.unchangedSince("known", version), "the probe to answer");
  expect(waits.empties.stillEmpty("agent", "known")).toBe(true);
  expect(waits.empties.stillEmpty("another agent", "known")).toBe(false);
  expect(waits.empties.stillEmpty("agent", "known-later")).toBe(false);
  await createTasks(database.db, actor, 1, { queue: "elsewhere" });
  await hubCaughtUp();
  expect(waits.empties.stillEmpty("agent", "known")).toBe(true); // another queue's event changes nothing here
  await createTasks(database.db, actor, 1, { queue: "known" });
  await until(() => waits.version("known") !== version, "the created event");
  expect(waits.empties.stillEmpty("agent", "known")).toBe(false);
  waiter.end("aborted");

  // A notBefore ahead: known empty until that moment, though no event and no waiter marks it.
  const dueAt = Date.now() + 1_500;
  expect((await perform(createTask, { title: "later", queue: "known-later", notBefore: new Date(dueAt).toISOString() }, { db: database.db, actor })).ok).toBe(true);
  await hubCaughtUp();
  const later = waits.enter("known-later");
  const laterVersion = waits.version("known-later");
  waits.empties.remember("agent", "known-later", laterVersion);
  await until(() => waits.unchangedSince("known-later", laterVersion), "the probe to answer");
  later.end("aborted");
  expect(waits.empties.stillEmpty("agent", "known-later")).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, dueAt - Date.now()) + 50));
  expect(waits.empties.stillEmpty("agent", "known-later")).toBe(false);

  // Without a hub that has read every notified event, nothing is known.
  const unfed = new ClaimWaits(async () => null);
  unfed.enter("q").end("aborted");
  await new Promise((resolve) => setTimeout(resolve, 50));
  unfed.empties.remember("agent", "q", unfed.version("q"));
  expect(unfed.unchangedSince("q", unfed.version("q"))).toBe(false);
  unfed.caughtUp = () => true;
  expect(unfed.unchangedSince("q", unfed.version("q"))).toBe(true);
}, 60_000);
