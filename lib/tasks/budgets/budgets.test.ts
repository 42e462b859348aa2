import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sql } from "drizzle-orm";
import {
  answerQuestion, askQuestion, cancel, claim, claimNext, complete, createTask, editTask, foldEvents, raiseBudget, readTaskReadiness, renew, start,
  taskHistory, type ActorRef, type Task,
} from "@/lib/tasks";
import { createAgentToken } from "@/lib/auth/tokens";
import { setMonthlyBudget } from "@/lib/auth/token-admin";
import { engineFixture, withStanding, type EngineFixture } from "@/test/engine";
import { eventTypes, failure, rowCounts, taskRow } from "@/test/inspect";
import { listTaskQuestions } from "@/lib/tasks/questions/questions";
import { perform } from "@/lib/tasks/core/engine";

// Budgets (docs/contract.md#budgets, docs/budgets.md) against the real database, on the injected clock.

let f: EngineFixture;
let agent: ActorRef;
let boss: ActorRef;
const LEASE = 30;
beforeAll(async () => {
  f = await engineFixture();
  agent = await f.actor("Ada", "agent");
  boss = await f.actor("Sue");
  await f.queue("spend", { leaseSeconds: LEASE });
});
afterAll(async () => {
  await f?.close();
});

const raise = withStanding(raiseBudget, "supervisor");
const supervisorEdit = withStanding(editTask, "supervisor");
const at = (task: Task) => ({ taskId: task.id, version: task.version });

async function startedWithBudget(limit: number, by = agent, queue = "spend") {
  const task = await f.task("Spend carefully", { queue, budget: { limit, unit: "usd_cents" } });
  const claimed = await f.must(claim, at(task), by);
  return f.must(start, at(claimed), by);
}

async function folds(id: string) {
  const { id: _id, blockedBy: _b, ...state } = await taskRow(f.db, id);
  expect(foldEvents(await taskHistory(f.db, id))).toEqual(state);
}

describe("a task's budget", () => {
  test("80 warns once, 100 parks it with its owner, a raise resumes it with the same attempt", async () => {
    let task = await startedWithBudget(100);
    expect(task.budget).toEqual({ limit: 100, unit: "usd_cents" });
    task = await f.must(renew, { ...at(task), spend: 50 }, agent);
    expect(task.spent).toBe(50);
    task = await f.must(renew, { ...at(task), spend: 30 }, agent);
    task = await f.must(renew, { ...at(task), spend: 10 }, agent);
    expect(task).toMatchObject({ status: "started", spent: 90 });
    expect((await eventTypes(f.db, task.id)).filter((t) => t === "budget_warning")).toHaveLength(1);

    const attempt = task.attempt;
    const parked = await f.must(renew, { ...at(task), spend: 20 }, agent);
    expect(parked).toMatchObject({ status: "awaiting_input", spent: 110, owner: { id: agent.id }, leaseUntil: null, version: task.version + 1 });
    const [question] = (await f.must(listTaskQuestions, { taskId: task.id }, boss)).filter((q) => q.kind === "budget");
    expect(question).toMatchObject({ kind: "budget", answer: null });
    expect(question!.question).toContain("110 usd_cents spent of 100 usd_cents");

    // Parked, not lapsed: three lease lengths on, nobody can take it and it is still the agent's.
    f.clock.advance(LEASE * 3 + 1);
    const other = await f.actor("Olga", "agent");
    failure(await f.run(claim, at(parked), other), "invalid_transition");
    expect(await f.must(claimNext, { queue: "spend" }, other)).toBeNull();
    expect(await taskRow(f.db, task.id)).toMatchObject({ status: "awaiting_input", ownerId: agent.id, attempt });
    // A heartbeat while parked is refused: nothing to renew.
    failure(await f.run(renew, { ...at(parked), spend: 1 }, agent), "invalid_transition");

    // Only a raise answers a budget question; a person's answer is refused, and so is a raise that would park it again.
    failure(await f.run(answerQuestion, { taskId: task.id, questionId: question!.id, text: "go on" }, boss), "invalid_transition");
    const short = failure(await f.run(raise, { ...at(parked), add: 10 }, boss), "invalid_request");
    expect(short).toMatchObject({ field: "add" });
    failure(await perform(raiseBudget, { ...at(parked), add: 50 }, { db: f.db, actor: agent, clock: f.clock, standing: "agent" }), "forbidden");

    const resumed = await f.must(raise, { ...at(parked), add: 50 }, boss);
    expect(resumed).toMatchObject({ status: "started", owner: { id: agent.id }, attempt, budget: { limit: 150, unit: "usd_cents" }, version: parked.version + 1 });
    expect(resumed.leaseUntil!.getTime()).toBe(f.clock.time.getTime() + LEASE * 1000);
    const answered = (await f.must(listTaskQuestions, { taskId: task.id }, boss)).find((q) => q.id === question!.id)!;
    expect(answered.answer).toMatchObject({ text: "Raised the budget by 50 to 150 usd_cents", by: { id: boss.id } });

    const later = await f.must(renew, { ...at(resumed), spend: 5 }, agent);
    expect(later).toMatchObject({ status: "started", spent: 115, attempt });
    expect(await eventTypes(f.db, task.id)).toEqual(expect.arrayContaining(["budget_warning", "budget_reached", "budget_raised"]));
    await folds(task.id);
  });

  test("a supervisor may cancel a task parked on its budget: the attempt ends, the question is closed", async () => {
    const task = await startedWithBudget(5);
    const parked = await f.must(renew, { ...at(task), spend: 5 }, agent);
    expect(parked.status).toBe("awaiting_input");
    const cancelled = await f.must(withStanding(cancel, "supervisor"), at(parked), boss);
    expect(cancelled).toMatchObject({ status: "cancelled", owner: null, leaseUntil: null });
    const [question] = await f.must(listTaskQuestions, { taskId: task.id }, boss);
    expect(question!.answer).toBeNull();
    expect(question!.expiredAt).not.toBeNull();
    // Nothing of it waits: no open question, and the old owner's heartbeat is refused.
    failure(await f.run(renew, at(cancelled), agent), "invalid_transition");
    await folds(task.id);
  });

  test("a completion adds its spend and warns where it crosses 80 %; it is not stopped", async () => {
    const task = await startedWithBudget(10);
    const done = await f.must(complete, { ...at(task), spend: 12 }, agent);
    expect(done).toMatchObject({ status: "done", spent: 12 });
    expect(await eventTypes(f.db, task.id)).toContain("budget_warning");
    await folds(task.id);
  });

  test("a budget can be set, changed and removed by an edit of a queued task", async () => {
    let task = await f.task("Later", { queue: "spend" });
    expect(task).toMatchObject({ budget: null, spent: 0 });
    task = await f.must(supervisorEdit, { ...at(task), budget: { limit: 7, unit: "tokens" } }, boss);
    expect(task.budget).toEqual({ limit: 7, unit: "tokens" });
    task = await f.must(supervisorEdit, { ...at(task), budget: null }, boss);
    expect(task.budget).toBeNull();
    await folds(task.id);
  });

  test("a raise of a task that waits on a person's question is refused", async () => {
    const task = await startedWithBudget(100);
    const asked = await f.must(askQuestion, { ...at(task), question: "Which?" }, agent);
    failure(await f.run(raise, { ...at(asked.task), add: 10 }, boss), "invalid_transition");
  });

  test.each([
    [{ budget: { limit: 0, unit: "usd_cents" } }, "budget.limit"],
    [{ budget: { limit: -3, unit: "usd_cents" } }, "budget.limit"],
    [{ budget: { limit: 5, unit: "x".repeat(21) } }, "budget.unit"],
    [{ budget: { limit: 5, unit: "" } }, "budget.unit"],
  ])("a create with %j is refused naming %s, and writes nothing", async (input, field) => {
    const before = await rowCounts(f.db);
    const refused = failure(await f.run(createTask, { title: "Bad", queue: "spend", ...input }, boss), "invalid_request");
    expect(refused.field).toBe(field);
    expect(await rowCounts(f.db)).toEqual(before);
  });

  test("spend below 0 is refused naming spend, and changes nothing", async () => {
    const task = await startedWithBudget(100);
    const refused = failure(await f.run(renew, { ...at(task), spend: -1 }, agent), "invalid_request");
    expect(refused.field).toBe("spend");
    expect(await taskRow(f.db, task.id)).toMatchObject({ spent: 0, version: task.version });
  });
});

describe("an agent's monthly cap", () => {
  test("an agent at its cap is handed nothing while another agent is; the next month it works again", async () => {
    await f.queue("capped", { leaseSeconds: LEASE });
    const capped = await createAgentToken(f.db, { name: "capped-bot" });
    const free = await createAgentToken(f.db, { name: "free-bot" });
    const [cappedActor, freeActor] = await Promise.all([capped, free].map(async (t) => {
      const [row] = await f.db.execute<{ actor_id: string }>(sql`SELECT actor_id::text FROM agent_tokens WHERE id = ${t.id}::uuid`);
      return { id: row!.actor_id, name: t.name, kind: "agent" as const };
    }));
    await f.must(withStanding(setMonthlyBudget, "supervisor"), { name: "capped-bot", monthlyBudget: { limit: 20, unit: "usd_cents" } }, boss);

    // Spend in the cap's unit counts; so does spend on a task without a budget.
    const first = await startedWithBudget(1000, cappedActor!, "capped");
    await f.must(renew, { ...at(first), spend: 15 }, cappedActor!);
    const plain = await f.task("No budget", { queue: "capped" });
    const held = await f.must(start, at(await f.must(claim, at(plain), cappedActor!)), cappedActor!);
    await f.must(complete, { ...at(held), spend: 5 }, cappedActor!);

    const waiting = await f.task("Next up", { queue: "capped" });
    expect(await f.must(claimNext, { queue: "capped" }, cappedActor!)).toBeNull();
    const readiness = (await readTaskReadiness(f.db, f.clock, waiting.id, cappedActor!))!;
    expect(readiness.claimable).toBe(false);
    expect(readiness.reasons.map((r) => r.code)).toContain("agent_budget");
    expect(failure(await f.run(claim, at(waiting), cappedActor!), "not_ready").message).toContain("monthly cap of 20 usd_cents");

    expect((await readTaskReadiness(f.db, f.clock, waiting.id, freeActor!))!.claimable).toBe(true);
    expect(await f.must(claimNext, { queue: "capped" }, freeActor!)).toMatchObject({ id: waiting.id });

    // Its own tasks budget in its cap's unit or none: another unit's spend would never count.
    for (const unit of ["usd-cents", "USD_cents", "tokens"]) {
      const refused = failure(await f.run(createTask, { title: "Dodge the cap", queue: "capped", budget: { limit: 1e9, unit } }, cappedActor!), "invalid_request");
      expect(refused).toMatchObject({ field: "budget.unit", message: expect.stringContaining("must be usd_cents") });
    }
    const own = await f.must(createTask, { title: "Within the cap", queue: "capped", budget: { limit: 10, unit: "usd_cents" } }, cappedActor!);
    failure(await f.run(editTask, { taskId: own.id, version: own.version, budget: { limit: 10, unit: "tokens" } }, cappedActor!), "invalid_request");
    // An agent without a cap, and a person, budget in any unit.
    await f.must(createTask, { title: "Tokens", queue: "capped", budget: { limit: 10, unit: "tokens" } }, freeActor!);

    // A new calendar month (UTC) starts from nothing (the first task's lease lapsed meanwhile: it is handed out again).
    const now = f.clock.time;
    f.clock.set(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 0, 1)));
    expect(await f.must(claimNext, { queue: "capped" }, cappedActor!)).not.toBeNull();
  });
});
