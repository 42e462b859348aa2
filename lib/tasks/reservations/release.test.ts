import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { LIMITS } from "@/lib/limits";
import {
  answerQuestion, askQuestion, claimNext, foldEvents, perform, releaseReservations, taskHistory, type ActorRef, type Task,
} from "@/lib/tasks";
import { engineFixture, withStanding, type EngineFixture } from "@/test/engine";
import { failure, taskRow } from "@/test/inspect";
import { releaseOverdueReservations } from "./release";

// A parked task's reservations are bounded (docs/reservations.md, "Parked on a question"): a
// supervisor releases them, and the questions' pass releases them once the task has been
// parked for the hold; released, they are gone from the task, and the answer resumes it
// without them.

let f: EngineFixture;
let amal: ActorRef;
let bilal: ActorRef;
let sara: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal", "agent");
  bilal = await f.actor("Bilal", "agent");
  sara = await f.actor("Sara");
});
afterAll(async () => {
  await f?.close();
});

const ex = (resource: string) => ({ resource, mode: "exclusive" as const });
const supervisorRelease = withStanding(releaseReservations, "supervisor");
const answering = withStanding(answerQuestion, "supervisor");

async function expectReplays(taskId: string) {
  const { id: _id, blockedBy: _b, ...state } = await taskRow(f.db, taskId);
  expect(foldEvents(await taskHistory(f.db, taskId))).toEqual(state);
}

/** An agent's task that reserves `<queue>/**` and is parked on a question, and a rival it blocks. */
async function parkedWithRival(q: string): Promise<{ parked: Task; rival: Task; questionId: string }> {
  await f.queue(q, { questionTimeoutSeconds: 604_800 });
  // Resources are not a queue's: each case reserves under its own prefix.
  const asking = await f.task("asks first", { queue: q, priority: 5, reserves: [ex(`${q}/**`)] });
  const rival = await f.task("rival", { queue: q, priority: 1, reserves: [ex(`${q}/invoice.ts`)] });
  const started = (await f.must(claimNext, { queue: q, start: true }, amal))!;
  expect(started.id).toBe(asking.id);
  const { task: parked, question } = await f.must(askQuestion, { taskId: asking.id, version: started.version, question: "Refund?" }, amal);
  expect(await f.must(claimNext, { queue: q }, bilal)).toBeNull();
  return { parked, rival, questionId: question.id };
}

describe("a supervisor releases a parked task's reservations", () => {
  test("the rival is claimable at once; the task stays parked with its owner; the answer resumes it reserving nothing", async () => {
    const { parked, rival, questionId } = await parkedWithRival("release-by-hand");
    const released = await f.must(supervisorRelease, { taskId: parked.id, version: parked.version }, sara);
    expect(released).toMatchObject({ status: "awaiting_input", owner: { id: amal.id }, reserves: [], version: parked.version + 1 });
    expect((await f.must(claimNext, { queue: "release-by-hand" }, bilal))!.id).toBe(rival.id);
    const { task: resumed } = await f.must(answering, { taskId: parked.id, questionId, text: "yes" }, sara);
    expect(resumed).toMatchObject({ status: "started", owner: { id: amal.id }, reserves: [] });
    await expectReplays(parked.id);
  });

  test("refused: not parked (409 invalid_transition), a stale version (409), anyone but a supervisor (403); nothing written", async () => {
    const { parked } = await parkedWithRival("release-refused");
    const before = await taskRow(f.db, parked.id);
    failure(await f.run(supervisorRelease, { taskId: parked.id, version: parked.version - 1 }, sara), "version_conflict");
    failure(await perform(releaseReservations, { taskId: parked.id, version: parked.version }, { db: f.db, actor: amal, clock: f.clock, standing: "agent" }), "forbidden");
    failure(await perform(releaseReservations, { taskId: parked.id, version: parked.version }, { db: f.db, actor: sara, clock: f.clock, standing: "staff" }), "forbidden");
    expect(await taskRow(f.db, parked.id)).toEqual(before);
    const queued = await f.task("queued", { queue: "release-refused", reserves: [ex("docs/**")] });
    failure(await f.run(supervisorRelease, { taskId: queued.id, version: queued.version }, sara), "invalid_transition");
  });
});

describe("the hold", () => {
  test("a task parked for the hold releases what it reserves in the questions' pass, not a second before", async () => {
    const { parked, rival } = await parkedWithRival("release-hold");
    const pass = () => f.db.transaction((tx) => releaseOverdueReservations(tx, f.clock));
    f.clock.advance(LIMITS.parkedReservationHoldSeconds - 1);
    await pass();
    expect((await taskRow(f.db, parked.id)).reserves).not.toBeNull();
    expect(await f.must(claimNext, { queue: "release-hold" }, bilal)).toBeNull();
    f.clock.advance(1);
    expect(await pass()).toBeGreaterThanOrEqual(1); // (the other cases' parked tasks are as old)
    expect(await taskRow(f.db, parked.id)).toMatchObject({ status: "awaiting_input", reserves: null, ownerId: amal.id });
    expect((await f.must(claimNext, { queue: "release-hold" }, bilal))!.id).toBe(rival.id);
    expect(await pass()).toBe(0);
    const [event] = (await taskHistory(f.db, parked.id)).filter((e) => e.type === "edited");
    expect(event).toMatchObject({ actorId: "00000000-0000-0000-0000-000000000000", payload: { changes: { reserves: { to: [] } }, reason: expect.stringContaining("Parked on a question") } });
    await expectReplays(parked.id);
  });
});
