import { randomBytes } from "node:crypto";
import type { Db } from "@/db/client";
import { eq } from "drizzle-orm";
import { queues, schedules, webhooks } from "@/db/schema";
import { askQuestion, claim, complete, createActor, createTask, perform, renew, start, type ActorRef } from "@/lib/tasks";
import { createAgentToken } from "@/lib/auth/tokens";
import { SYSTEM_ACTOR_ID } from "@/lib/tasks/core/events";
import type { Result, Task } from "@/lib/tasks/core/types";
import { makeQueue } from "../queues";

// Rows the matrices' scenes act on for the v1.2 supervisor surfaces (webhooks, schedules),
// written straight to the database as a fixture: the cell under test is the call, not these.

export async function aWebhook(db: Db, queue: string): Promise<string> {
  const [row] = await db.insert(webhooks).values({
    url: `https://198.51.100.7/${queue}`, events: ["breaker_tripped"], queues: [queue], secretSealed: "matrix", createdBy: SYSTEM_ACTOR_ID,
  }).returning({ id: webhooks.id });
  return row!.id;
}

export async function aSchedule(db: Db, queue: string): Promise<string> {
  const [row] = await db.insert(schedules).values({
    name: `matrix ${queue} ${randomBytes(3).toString("hex")}`, cron: "0 9 * * 1", queue, task: { title: "matrix" },
    nextAt: new Date(Date.now() + 86_400_000), createdBy: SYSTEM_ACTOR_ID,
  }).returning({ id: schedules.id });
  return row!.id;
}

/**
 * An in_review task of a queue whose every completion is reviewed, submitted by an agent of its
 * own (so any caller may review it: it neither submitted nor held it). Made through the engine.
 */
export async function aSubmission(db: Db, queue: string): Promise<Task> {
  await makeQueue(db, queue);
  await db.update(queues).set({ review: "everyone" }).where(eq(queues.name, queue));
  const maker = await createActor(db, "agent", `maker ${queue}`);
  const as = async <T>(op: Parameters<typeof perform>[0], input: unknown): Promise<T> => {
    const result = (await perform(op, input, { db, actor: maker })) as Result<T>;
    if (!result.ok) throw new Error(`scene: ${result.error.code}: ${result.error.message}`);
    return result.value;
  };
  let task = await as<Task>(createTask, { title: `review ${queue}`, queue });
  task = await as<Task>(claim, { taskId: task.id, version: task.version });
  task = await as<Task>(start, { taskId: task.id, version: task.version });
  return as<Task>(complete, { taskId: task.id, version: task.version, result: { scene: queue } });
}

/** The review body that approves `task`'s submission. */
export const approval = (task: Task) => ({ version: task.version, decision: "approve", digest: task.submission!.digest });

/**
 * A started task of `asker` parked on a question (docs/questions.md), made through the engine:
 * the answer cells answer it as someone else (an asker may not answer: self_review).
 */
export async function aQuestion(
  db: Db, queue: string, asker?: ActorRef, reserves?: { resource: string; mode: "exclusive" | "shared" }[],
): Promise<{ taskId: string; questionId: string; version: number }> {
  await makeQueue(db, queue);
  const by = asker ?? (await createActor(db, "agent", `asker ${queue}`));
  const created = await perform(createTask, { title: `question ${queue}`, queue, ...(reserves ? { reserves } : {}) }, { db, actor: by });
  if (!created.ok) throw new Error(created.error.message);
  const claimed = await perform(claim, { taskId: created.value.id, version: created.value.version }, { db, actor: by });
  if (!claimed.ok) throw new Error(claimed.error.message);
  const started = await perform(start, { taskId: claimed.value.id, version: claimed.value.version }, { db, actor: by });
  if (!started.ok) throw new Error(started.error.message);
  const asked = await perform(askQuestion, { taskId: started.value.id, version: started.value.version, question: "matrix?", choices: ["yes", "no"] }, { db, actor: by });
  if (!asked.ok) throw new Error(asked.error.message);
  return { taskId: asked.value.task.id, questionId: asked.value.question.id, version: asked.value.task.version };
}

/** A started task of an agent of its own, parked on its budget by a heartbeat's spend (docs/budgets.md). */
export async function aParkedBudget(db: Db, queue: string): Promise<Task> {
  await makeQueue(db, queue);
  const by = await createActor(db, "agent", `spender ${queue}`);
  const step = async (op: Parameters<typeof perform>[0], input: unknown): Promise<Task> => {
    const result = (await perform(op, input, { db, actor: by })) as Result<Task>;
    if (!result.ok) throw new Error(`scene: ${result.error.code}: ${result.error.message}`);
    return result.value;
  };
  let task = await step(createTask, { title: `budget ${queue}`, queue, budget: { limit: 5, unit: "tokens" } });
  task = await step(claim, { taskId: task.id, version: task.version });
  task = await step(start, { taskId: task.id, version: task.version });
  return step(renew, { taskId: task.id, version: task.version, spend: 5 });
}

/** A live agent token of its own (the cap cells change it). */
export async function aToken(db: Db, queue: string): Promise<string> {
  return (await createAgentToken(db, { name: `capped-${queue}-${randomBytes(3).toString("hex")}` })).name;
}
