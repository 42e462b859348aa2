import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, claimNext, completeAndClaimNext, NOTIFY_CHANNEL, setQueueSettings, start, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf, failure, rowCounts, taskRow } from "@/test/inspect";
import { listen, type Listener } from "@/test/listener";

let f: EngineFixture;
let amal: ActorRef;
let bilal: ActorRef;
let supervisor: ActorRef;
let notifications: Listener;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal", "agent");
  bilal = await f.actor("Bilal", "agent");
  supervisor = await f.actor("Sara");
  notifications = await listen(f.database.url, NOTIFY_CHANNEL);
});
afterAll(async () => {
  await notifications?.close();
  await f?.close();
});

/** A task of `queue` claimed and started by `who` (version 3). */
async function startedBy(who: ActorRef, queue: string, title = "first") {
  const task = await f.task(title, { queue });
  await f.must(claim, { taskId: task.id, version: 1 }, who);
  return f.must(start, { taskId: task.id, version: 2 }, who);
}

/** Waits until every notification so far has arrived (they come asynchronously), then forgets them. */
async function settle() {
  const [row] = await f.database.client<{ last: string }[]>`SELECT max(id)::text AS last FROM task_events`;
  const last = row!.last;
  await notifications.waitFor((p) => BigInt(JSON.parse(p).last) >= BigInt(last));
  notifications.clear();
}

/** Waits until the listener has seen the notification of the newest event, then counts them. */
async function notificationsUpTo(lastEventId: bigint): Promise<string[]> {
  await notifications.waitFor((p) => BigInt(JSON.parse(p).last) >= lastEventId);
  return [...notifications.received];
}

describe("complete with next", () => {
  test("completes and claims (and starts) the next task in one transaction, with one NOTIFY", async () => {
    const done = await startedBy(amal, "loop");
    const waiting = await f.task("second", { queue: "loop" });
    await settle();

    const answer = await f.must(completeAndClaimNext, { taskId: done.id, version: 3, result: { n: 1 }, next: { queue: "loop", start: true } }, amal);
    expect(answer.task).toMatchObject({ id: done.id, status: "done", version: 4 });
    expect(answer.next).toMatchObject({ id: waiting.id, status: "started", version: 2, owner: { id: amal.id } });

    const completed = (await eventsOf(f.db, done.id)).at(-1)!;
    const claimed = (await eventsOf(f.db, waiting.id)).slice(1);
    expect(completed).toMatchObject({ type: "completed", payload: { version: 4, result: { n: 1 } } });
    // One act, one event: the claim that started the next task.
    expect(claimed).toMatchObject([{ type: "claimed", payload: { version: 2, status: "started", started: true } }]);
    // One transaction: every event of both tasks carries its id, and one notification covers them.
    expect(new Set([completed, ...claimed].map((e) => e.txId)).size).toBe(1);
    const seen = await notificationsUpTo(claimed.at(-1)!.id);
    expect(seen).toHaveLength(1);
    expect(JSON.parse(seen[0]!)).toMatchObject({ first: completed.id.toString(), last: claimed.at(-1)!.id.toString(), count: 2 });
  });

  test("nothing claimable: the completion stands and next is null", async () => {
    const done = await startedBy(amal, "empty-after");
    const answer = await f.must(completeAndClaimNext, { taskId: done.id, version: 3, next: { queue: "empty-after" } }, amal);
    expect(answer).toMatchObject({ task: { status: "done" }, next: null });
  });

  test("without next: the completion alone, as in contract v1", async () => {
    const done = await startedBy(amal, "plain");
    const answer = await f.must(completeAndClaimNext, { taskId: done.id, version: 3 }, amal);
    expect(answer).toEqual({ task: expect.objectContaining({ status: "done" }) });
  });

  test("a refused completion claims nothing", async () => {
    const held = await startedBy(bilal, "refused");
    const waiting = await f.task("untouched", { queue: "refused" });
    const before = await rowCounts(f.db);

    failure(await f.run(completeAndClaimNext, { taskId: held.id, version: 3, next: { queue: "refused" } }, amal), "not_owner");
    failure(await f.run(completeAndClaimNext, { taskId: held.id, version: 2, next: { queue: "refused" } }, bilal), "version_conflict");
    expect(await taskRow(f.db, waiting.id)).toMatchObject({ status: "queued", version: 1, ownerId: null });
    expect(await rowCounts(f.db)).toEqual(before);
  });

  test("an invalid next is invalid_request and completes nothing", async () => {
    const task = await startedBy(amal, "bad-next");
    const error = failure(await f.run(completeAndClaimNext, { taskId: task.id, version: 3, next: { queue: "Bad Queue" } }, amal), "invalid_request");
    expect(error.field).toBe("next.queue");
    failure(await f.run(completeAndClaimNext, { taskId: task.id, version: 3, next: { leaseSeconds: 1 } as never }, amal), "invalid_request");
    failure(await f.run(completeAndClaimNext, { taskId: task.id, version: 3, next: { surprise: true } as never }, amal), "invalid_request");
    // A well-formed queue that does not exist is refused by the claim: still next's field.
    const unknown = failure(await f.run(completeAndClaimNext, { taskId: task.id, version: 3, next: { queue: "no-such-queue" } }, amal), "invalid_request");
    expect(unknown.field).toBe("next.queue");
    expect(await taskRow(f.db, task.id)).toMatchObject({ status: "started", version: 3 });
  });

  test("a next claim the queue refuses (people only) undoes the completion: the refusal, nothing written", async () => {
    const task = await startedBy(amal, "agents-may-work");
    await f.task("for people", { queue: "people-only" });
    await f.must(setQueueSettings, { queue: "people-only", claimants: "people" }, supervisor);
    const before = await rowCounts(f.db);
    const refused = failure(await f.run(completeAndClaimNext, { taskId: task.id, version: 3, next: { queue: "people-only" } }, amal), "forbidden");
    expect(refused.message).toMatch(/people/);
    expect(await taskRow(f.db, task.id)).toMatchObject({ status: "started", version: 3 });
    expect(await rowCounts(f.db)).toEqual(before);
  });

  test("a retry whose answer was lost gets the same next task, not a second one", async () => {
    const done = await startedBy(amal, "retry");
    const first = await f.task("claimed by the first try", { queue: "retry" });
    const second = await f.task("left for others", { queue: "retry" });
    const input = { taskId: done.id, version: 3, next: { queue: "retry", start: true } };

    const answer = await f.must(completeAndClaimNext, input, amal);
    const again = await f.must(completeAndClaimNext, input, amal);
    expect(answer.next?.id).toBe(first.id);
    expect(again).toEqual(answer);
    expect(await taskRow(f.db, second.id)).toMatchObject({ status: "queued", ownerId: null });
    // Once that task is no longer held by the caller, a retry says so with null.
    const other = await f.must(claimNext, { queue: "retry" }, bilal);
    expect(other?.id).toBe(second.id);
  });

  test("the next task is chosen with the completion, before its dependents are unblocked: a dependent is claimable once that commits", async () => {
    const done = await startedBy(amal, "chosen-first");
    const dependent = await f.task("waits for the first", { queue: "chosen-first", priority: 9, dependsOn: [done.id] });
    const other = await f.task("was ready", { queue: "chosen-first" });

    const answer = await f.must(completeAndClaimNext, { taskId: done.id, version: 3, next: { queue: "chosen-first", start: true } }, amal);
    expect(answer.next?.id).toBe(other.id);
    // Unblocked in the same transaction, with its event, and claimable by the next claimer.
    expect(await taskRow(f.db, dependent.id)).toMatchObject({ status: "queued", blockedBy: [], ownerId: null });
    expect((await eventsOf(f.db, dependent.id)).at(-1)).toMatchObject({ type: "unblocked" });
    expect((await f.must(claimNext, { queue: "chosen-first" }, bilal))?.id).toBe(dependent.id);
  });
});
