import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { askQuestion, claim, complete, forceRelease, renew, start, type ActorRef, type Task } from "@/lib/tasks";
import { createUser } from "@/lib/auth/users";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf } from "@/test/inspect";
import { readOf, recording } from "@/test/plans";
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
  // No grace for agents after a person's lapse (docs/attention.md): the takeover is at once.
  await f.queue("notify-review", { review: "everyone", leaseSeconds: 30, personGraceSeconds: 0 });
});
afterAll(async () => {
  await f?.close();
});

const at = (t: Task) => ({ taskId: t.id, version: t.version });
/** The task's events as the board names them: each id with its task's. */
const idsOf = async (task: Task) => (await eventsOf(f.db, task.id)).map((e) => ({ id: e.id.toString(), taskId: task.id }));
const staff = (actor: ActorRef) => ({ actorId: actor.id, role: "staff" as const });

describe("notification facts", () => {
  test("a submission is a review waiting for whoever may review it: not its submitter, not a holder", async () => {
    let task = await f.task("needs eyes", { queue: "notify-review" });
    task = await f.must(claim, at(task), olu);
    const { release } = await import("@/lib/tasks");
    task = await f.must(release, at(task), olu);
    task = await f.must(claim, at(task), agent);
    task = await f.must(start, at(task), agent);
    task = await f.must(complete, { ...at(task), result: { summary: "looked" } }, agent);
    const ids = await idsOf(task);
    const facts = await notificationFacts(f.db, staff(pia), ids);
    expect(facts).toEqual([{ eventId: ids.at(-1)!.id, kind: "review_waiting", taskId: task.id, title: "A review waits for you", body: expect.stringContaining("needs eyes") }]);
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
    expect(takeover[0]!.eventId).toBe(ids.at(-1)!.id);
    expect(await notificationFacts(f.db, staff(olu), ids)).toEqual([]);

    const other = await f.must(claim, at(await f.task("held", { queue: "notify-review" })), pia);
    await f.must(forceRelease, at(other), boss);
    ids = await idsOf(other);
    expect(await notificationFacts(f.db, staff(pia), ids)).toMatchObject([{ kind: "takeover", title: "Your task was taken back" }]);
    expect(await notificationFacts(f.db, staff(olu), ids)).toEqual([]);
  });

  test("ids it does not know, or of other types, are no fact", async () => {
    const task = await f.task("plain", { queue: "notify-review" });
    expect(await notificationFacts(f.db, staff(pia), [...(await idsOf(task)), { id: "999999999", taskId: task.id }])).toEqual([]);
    expect(await notificationFacts(f.db, staff(pia), [])).toEqual([]);
  });
});

describe("who hears of a question or a budget", () => {
  test("a question reaches every person it may be asked of: staff who never claimed in the queue, supervisors; not in an agents' queue", async () => {
    await f.queue("notify-ask");
    await f.queue("notify-agents-only", { claimants: "agents" });
    const ask = async (queue: string) => {
      let task = await f.task("which one?", { queue });
      task = await f.must(start, at(await f.must(claim, at(task), agent)), agent);
      await f.must(askQuestion, { ...at(task), question: "A or B?" }, agent);
      return idsOf(task);
    };
    const ids = await ask("notify-ask");
    const supervisor = { actorId: boss.id, role: "supervisor" as const };
    expect(await notificationFacts(f.db, staff(pia), ids)).toMatchObject([{ kind: "question", title: "A question in notify-ask" }]);
    expect(await notificationFacts(f.db, supervisor, ids)).toMatchObject([{ kind: "question" }]);
    const agentsOnly = await ask("notify-agents-only");
    expect(await notificationFacts(f.db, staff(pia), agentsOnly)).toEqual([]);
    expect(await notificationFacts(f.db, supervisor, agentsOnly)).toMatchObject([{ kind: "question" }]);
  });

  test("a budget reached is a supervisor's to raise; staff are not told", async () => {
    let task = await f.task("spend", { queue: "notify-ask", budget: { limit: 5, unit: "tokens" } });
    task = await f.must(start, at(await f.must(claim, at(task), agent)), agent);
    task = await f.must(renew, { ...at(task), spend: 5 }, agent);
    const ids = await idsOf(task);
    expect(await notificationFacts(f.db, { actorId: boss.id, role: "supervisor" }, ids)).toMatchObject([{ kind: "budget", title: "A budget waits for you" }]);
    expect(await notificationFacts(f.db, staff(pia), ids)).toEqual([]);
  });

  test("a kind the person turned off is no fact for them", async () => {
    const person = await createUser(f.db, { email: "quiet@example.com", name: "Quiet", role: "staff", password: "pw-quiet-12345" });
    let task = await f.task("asks", { queue: "notify-ask" });
    task = await f.must(start, at(await f.must(claim, at(task), agent)), agent);
    await f.must(askQuestion, { ...at(task), question: "Now?" }, agent);
    const ids = await idsOf(task);
    const quiet = staff(person.actor);
    expect(await notificationFacts(f.db, quiet, ids)).toMatchObject([{ kind: "question" }]);
    await f.database.client`UPDATE users SET notifications_off = '{question}' WHERE actor_id = ${person.actor.id}::uuid`;
    expect(await notificationFacts(f.db, quiet, ids)).toEqual([]);
  });
});

describe("what a call reads", () => {
  test("each event is found by its task and id: a long log is not read", async () => {
    const task = await f.task("among many", { queue: "notify-review" });
    // 30,000 other tasks with an event each, each of a transaction of its own as in a real log
    // (one transaction id for all would let a skip scan of task_events_feed find any id): the
    // log a lookup by event id alone would read.
    await f.database.client`
      WITH made AS (INSERT INTO task_state (queue) SELECT 'notify-review' FROM generate_series(1, 30000) RETURNING id)
      INSERT INTO task_events (task_id, queue, type, actor_id, payload, created_at, tx_id)
      SELECT id, 'notify-review', 'commented', ${agent.id}::uuid, '{}', '2026-01-01T00:00:00Z'::timestamptz, (1000 + id)::text::xid8 FROM made`;
    await f.database.client`ANALYZE task_state, task_events`;
    const claimed = await f.must(claim, at(task), agent);
    await f.must(forceRelease, at(claimed), boss);
    const refs = await idsOf(task);

    const recorder = recording(f.db);
    expect(await notificationFacts(recorder.db, staff(olu), refs)).toEqual([]);
    expect(recorder.queries).toHaveLength(1);
    // Each event a probe of task_events_task (its subqueries too), a few pages each: 128 for the
    // old lookup by id alone, which walked the whole log (its index: pages, not rows, show it).
    expect(await readOf(f.db, recorder.queries[0]!, "task_events", "pages"), "pages of task_events read").toBeLessThanOrEqual(40);
  });
});
