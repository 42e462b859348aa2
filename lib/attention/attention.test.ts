import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  answerQuestion, askQuestion, claim, complete, failTask, forceRelease, perform, raiseBudget, recordEffect, release, renew,
  requeue, resolveEffect, review, start, type ActorRef, type Operation, type Task,
} from "@/lib/tasks";
import type { Standing } from "@/lib/tasks/core/standing";
import type { Result } from "@/lib/tasks/core/types";
import { engineFixture, type EngineFixture } from "@/test/engine";
import type { z } from "zod";
import { attention } from "./attention";
import type { Attention, AttentionKind } from "./kinds";

// The attention counts against the engine (docs/contract.md, docs/attention.md): for each kind, as
// each standing — staff, a supervisor, an agent token, an observer — every counted item is an
// act the engine then performs, and an uncounted one is an act it refuses.

let f: EngineFixture;
let amal: ActorRef; // staff
let sue: ActorRef; // supervisor
let bot: ActorRef; // an agent token
let bot2: ActorRef; // another agent token
let obs: ActorRef; // an observer token
const standingOf = new Map<string, Standing>();

beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  sue = await f.actor("Sue");
  bot = await f.actor("Bot", "agent");
  bot2 = await f.actor("Bot two", "agent");
  obs = await f.actor("Watcher", "agent");
  for (const [a, s] of [[amal, "staff"], [sue, "supervisor"], [bot, "agent"], [bot2, "agent"], [obs, "observer"]] as const) standingOf.set(a.id, s);
});
afterAll(async () => {
  await f?.close();
});

/** Performs `op` as `actor` in its standing, on the fixture's clock: what a surface would do. */
const as = <S extends z.ZodType, O>(actor: ActorRef, op: Operation<S, O>, input: z.input<S>): Promise<Result<O>> =>
  perform(op, input, { db: f.db, actor, standing: standingOf.get(actor.id), clock: f.clock });
async function must<S extends z.ZodType, O>(actor: ActorRef, op: Operation<S, O>, input: z.input<S>): Promise<O> {
  const result = await as(actor, op, input);
  if (!result.ok) throw new Error(`${op.name}: ${result.error.code}: ${result.error.message}`);
  return result.value;
}
async function attentionOf(actor: ActorRef): Promise<Attention> {
  return must(actor, attention, {});
}
/** The task ids of one kind that wait for `actor`, in a queue of this test. */
async function waiting(actor: ActorRef, kind: AttentionKind, queue: string): Promise<string[]> {
  const found = await attentionOf(actor);
  const ids = found.items.filter((i) => i.kind === kind && i.queue === queue).map((i) => i.taskId);
  expect(found.counts[kind]).toBeGreaterThanOrEqual(ids.length);
  return ids;
}
const at = (t: Task) => ({ taskId: t.id, version: t.version });

async function startedBy(actor: ActorRef, queue: string, title = "work"): Promise<Task> {
  const task = await f.task(title, { queue });
  return must(actor, start, at(await must(actor, claim, at(task))));
}

describe("questions: the open questions the caller may answer", () => {
  test("staff and supervisors count an agent's question and may answer it; the asker, agents and observers neither", async () => {
    const q = await f.queue("att-questions");
    const asked = async () => {
      const task = await startedBy(bot, q);
      return must(bot, askQuestion, { ...at(task), question: "Which template?" });
    };
    const [first, second] = [await asked(), await asked()];
    for (const person of [amal, sue]) {
      expect((await waiting(person, "questions", q)).sort()).toEqual([first.task.id, second.task.id].sort());
      expect((await attentionOf(person)).items.find((i) => i.taskId === first.task.id)).toMatchObject({ questionId: first.question.id, title: "work" });
    }
    for (const caller of [bot, bot2, obs]) expect(await waiting(caller, "questions", q)).toEqual([]);
    expect((await as(bot2, answerQuestion, { taskId: first.task.id, questionId: first.question.id, text: "no" })).ok).toBe(false);
    expect((await as(obs, answerQuestion, { taskId: first.task.id, questionId: first.question.id, text: "no" })).ok).toBe(false);
    await must(amal, answerQuestion, { taskId: first.task.id, questionId: first.question.id, text: "The short one" });
    await must(sue, answerQuestion, { taskId: second.task.id, questionId: second.question.id, text: "The long one" });
    for (const person of [amal, sue]) expect(await waiting(person, "questions", q)).toEqual([]);
  });

  test("a person's own question waits for others, not for them (answering it is self_review)", async () => {
    const q = await f.queue("att-own-question");
    const task = await startedBy(amal, q);
    const { question } = await must(amal, askQuestion, { ...at(task), question: "May I?" });
    expect(await waiting(amal, "questions", q)).toEqual([]);
    const refused = await as(amal, answerQuestion, { taskId: task.id, questionId: question.id, text: "yes" });
    expect(refused.ok || refused.error.code).toBe("self_review");
    expect(await waiting(sue, "questions", q)).toEqual([task.id]);
  });
});

describe("budgets: parked budgets the caller may raise", () => {
  test("a supervisor counts a parked budget and raises it; staff, agents and observers neither", async () => {
    const q = await f.queue("att-budgets");
    const made = await f.task("spend", { queue: q, budget: { limit: 5, unit: "tokens" } });
    let task = await must(bot, start, at(await must(bot, claim, at(made))));
    task = await must(bot, renew, { ...at(task), spend: 5 });
    expect(task.status).toBe("awaiting_input");
    expect(await waiting(sue, "budgets", q)).toEqual([task.id]);
    for (const caller of [amal, bot2, obs]) {
      expect(await waiting(caller, "budgets", q)).toEqual([]);
      expect((await as(caller, raiseBudget, { ...at(task), add: 5 })).ok).toBe(false);
    }
    // Nor is a budget question a question anyone answers: a raise answers it.
    expect(await waiting(sue, "questions", q)).toEqual([]);
    await must(sue, raiseBudget, { ...at(task), add: 5 });
    expect(await waiting(sue, "budgets", q)).toEqual([]);
  });
});

describe("reviews: submissions the caller may review", () => {
  test("anyone who did not work on it counts it and may review it; its submitter and observers neither", async () => {
    const q = await f.queue("att-reviews", { review: "everyone" });
    const submit = async (by: ActorRef) => must(by, complete, { ...at(await startedBy(by, q)), result: { summary: `by ${by.name}` } });
    const mine = await submit(bot);
    const amals = await submit(amal);
    expect(mine.status).toBe("in_review");
    expect(await waiting(sue, "reviews", q)).toEqual([mine.id, amals.id]);
    expect(await waiting(bot2, "reviews", q)).toEqual([mine.id, amals.id]);
    expect(await waiting(amal, "reviews", q)).toEqual([mine.id]);
    expect(await waiting(bot, "reviews", q)).toEqual([amals.id]);
    expect(await waiting(obs, "reviews", q)).toEqual([]);
    const approve = (t: Task) => ({ ...at(t), decision: "approve" as const, digest: t.submission!.digest });
    for (const [caller, task] of [[bot, mine], [amal, amals], [obs, mine]] as const) {
      expect((await as(caller, review, approve(task))).ok).toBe(false);
    }
    await must(amal, review, approve(mine));
    await must(bot, review, approve(amals));
    expect(await waiting(sue, "reviews", q)).toEqual([]);
  });
});

describe("lapsing: the caller's own leases in their last minute", () => {
  test("counted for the holder only within a minute of the lapse; the renewal it asks for keeps the task", async () => {
    const q = await f.queue("att-lapsing", { leaseSeconds: 90 });
    const task = await startedBy(amal, q);
    f.clock.advance(25); // 65 s left
    expect(await waiting(amal, "lapsing", q)).toEqual([]);
    const before = (await attentionOf(amal)).nextChangeAt;
    expect(before?.getTime()).toBe(f.clock.time.getTime() + 5000); // its last minute begins in 5 s
    f.clock.advance(40); // 25 s left
    expect(await waiting(amal, "lapsing", q)).toEqual([task.id]);
    for (const caller of [sue, bot, obs]) expect(await waiting(caller, "lapsing", q)).toEqual([]);
    expect((await as(sue, renew, at(task))).ok).toBe(false);
    await must(amal, renew, at(task));
    expect(await waiting(amal, "lapsing", q)).toEqual([]);
    f.clock.advance(91);
    expect(await waiting(amal, "lapsing", q)).toEqual([]); // lapsed: no longer lapsing
  });
});

describe("lapsed and escalated: what the inbox asks a supervisor to decide", () => {
  test("a lapsed lease nobody took is a supervisor's to release; staff and agents count none and are refused", async () => {
    const q = await f.queue("att-lapsed", { leaseSeconds: 30 });
    const task = await startedBy(bot, q);
    expect(await waiting(sue, "lapsed", q)).toEqual([]);
    f.clock.advance(31);
    expect(await waiting(sue, "lapsed", q)).toEqual([task.id]);
    for (const caller of [amal, bot, bot2, obs]) {
      expect(await waiting(caller, "lapsed", q)).toEqual([]);
      expect((await as(caller, forceRelease, at(task))).ok).toBe(false);
    }
    await must(sue, forceRelease, at(task));
    expect(await waiting(sue, "lapsed", q)).toEqual([]);
  });

  test("an escalated task is a supervisor's to requeue", async () => {
    const q = await f.queue("att-escalated", { maxFailures: 1 });
    const task = await must(bot, failTask, { ...at(await startedBy(bot, q)), reason: "cannot" });
    expect(task.status).toBe("escalated");
    expect(await waiting(sue, "escalated", q)).toEqual([task.id]);
    for (const caller of [amal, bot, obs]) {
      expect(await waiting(caller, "escalated", q)).toEqual([]);
      expect((await as(caller, requeue, at(task))).ok).toBe(false);
    }
    await must(sue, requeue, at(task));
    expect(await waiting(sue, "escalated", q)).toEqual([]);
  });
});

describe("effects: unknown effects the caller may resolve", () => {
  test("a supervisor, and whoever holds the task now, count it and resolve it; others are refused", async () => {
    const q = await f.queue("att-effects");
    let task = await startedBy(bot, q);
    const { task: recorded } = await must(bot, recordEffect, { ...at(task), name: "refund" });
    task = await must(bot, release, at(recorded)); // the attempt ends open: its intent is unknown now
    expect(task.status).toBe("queued");
    expect(await waiting(sue, "effects", q)).toEqual([task.id]);
    for (const caller of [amal, bot, obs]) expect(await waiting(caller, "effects", q)).toEqual([]);
    const effects = await f.database.client<{ id: string }[]>`SELECT id::text AS id FROM task_effects WHERE task_id = ${task.id}::bigint`;
    const effectId = effects[0]!.id;
    const resolve = (t: Task) => ({ ...at(t), effectId, state: "applied" as const });
    expect((await as(amal, resolveEffect, resolve(task))).ok).toBe(false);
    task = await must(amal, claim, at(task));
    expect(await waiting(amal, "effects", q)).toEqual([task.id]);
    await must(amal, resolveEffect, resolve(task));
    for (const caller of [amal, sue]) expect(await waiting(caller, "effects", q)).toEqual([]);
  });
});

test("an observer is told of nothing: it may do none of it", async () => {
  const found = await attentionOf(obs);
  expect(Object.values(found.counts).every((n) => n === 0)).toBe(true);
  expect(found.items).toEqual([]);
});
