import { expect } from "@playwright/test";
import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { claim, complete, createActor, createTask, failTask, perform, recordSideEffect, setQueueSettings, start } from "../lib/tasks";
import type { ActorRef, Result, Task } from "../lib/tasks/core/types";

/** Engine calls for setting a scene; a failure here is a broken test, so it throws. */
export function must<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value;
}

export async function makeTask(db: Db, actor: ActorRef, input: { title: string; queue: string; priority?: number; description?: string; payload?: Record<string, unknown>; dependsOn?: string[] }): Promise<Task> {
  return must(await perform(createTask, input, { db, actor }));
}

export async function claimAs(db: Db, actor: ActorRef, task: Task): Promise<Task> {
  return must(await perform(claim, { taskId: task.id, version: task.version }, { db, actor }));
}

export async function startAs(db: Db, actor: ActorRef, task: Task): Promise<Task> {
  return must(await perform(start, { taskId: task.id, version: task.version }, { db, actor }));
}

/** A task an agent claimed, began a side effect on, and then went silent: its lease lapsed. */
export async function abandonedWithSideEffect(db: Db, creator: ActorRef, input: { title: string; queue: string }, effect: string) {
  const agent = await createActor(db, "agent", `robot-${Math.random().toString(36).slice(2, 6)}`);
  let task = await makeTask(db, creator, input);
  task = await claimAs(db, agent, task);
  task = must(await perform(recordSideEffect, { taskId: task.id, version: task.version, description: effect }, { db, actor: agent }));
  // The lease lapses: as if the agent crashed a while ago.
  await db.execute(sql`UPDATE tasks SET lease_until = now() - interval '5 seconds' WHERE id = ${task.id}::bigint`);
  return { agent, task };
}

/** A task an agent failed three times (the default max_failures): escalated, one failure per reason. */
export async function escalated(db: Db, creator: ActorRef, input: { title: string; queue: string }, reasons: string[]): Promise<Task> {
  const agent = await createActor(db, "agent", `robot-${Math.random().toString(36).slice(2, 6)}`);
  let task = await makeTask(db, creator, input);
  for (const reason of reasons) {
    task = await claimAs(db, agent, task);
    task = must(await perform(failTask, { taskId: task.id, version: task.version, reason }, { db, actor: agent }));
  }
  expect(task.status).toBe("escalated");
  return task;
}

/** A board with something in every column, for screenshots. */
export async function seedBoard(db: Db, people: { amal: ActorRef; bilal: ActorRef; sara: ActorRef }, queue: string) {
  await must(await perform(setQueueSettings, { queue, maxFailures: 1, leaseSeconds: 600 }, { db, actor: people.sara }));
  const agent = await createActor(db, "agent", "robot-7");
  const t = (title: string, priority = 0) => makeTask(db, people.sara, { title, queue, priority, description: `${title}: see the checklist.` });
  await t("Translate the safety notice", 0);
  await t("Review inspection 7", 5);
  await t("Reconcile October invoices", 1);
  await claimAs(db, people.bilal, await t("Call back the caretaker", 2));
  await startAs(db, agent, await claimAs(db, agent, await t("Resize the site photos", 3)));
  await abandonedWithSideEffect(db, people.sara, { title: "Email the landlord about unit 4B", queue }, "Sent the reminder email");
  const failing = await claimAs(db, agent, await t("Import the meter readings", 4));
  must(await perform(failTask, { taskId: failing.id, version: failing.version, reason: "CSV had no header" }, { db, actor: agent }));
  const done = await startAs(db, people.amal, await claimAs(db, people.amal, await t("File the fire drill report")));
  must(await perform(complete, { taskId: done.id, version: done.version }, { db, actor: people.amal }));
}
