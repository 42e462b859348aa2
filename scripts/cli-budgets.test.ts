import { afterAll, beforeAll, expect, test } from "vitest";
import { sql } from "drizzle-orm";
import { claim, createActor, createTask, perform, renew, start, type ActorRef } from "@/lib/tasks";
import { createAgentToken } from "@/lib/auth/tokens";
import { runCli } from "@/test/cli";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { makeQueue } from "@/test/queues";
import { taskRow } from "@/test/inspect";

// Budgets from a shell (docs/budgets.md): `task raise-budget` and `token budget`, as the operator.

let database: TestDatabase;
let bot: ActorRef;
beforeAll(async () => {
  database = await freshDatabase();
  bot = await createActor(database.db, "agent", "bot");
});
afterAll(async () => {
  await database?.close();
});

const must = async <T>(result: Promise<{ ok: true; value: T } | { ok: false; error: { message: string } }>) => {
  const r = await result;
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

test("an operator raises a parked task's budget; too little, or a bad amount, is a one-line refusal with nothing written", async () => {
  await makeQueue(database.db, "cli-budget");
  const ctx = { db: database.db, actor: bot };
  const task = await must(perform(createTask, { title: "metered", queue: "cli-budget", budget: { limit: 10, unit: "tokens" } }, ctx));
  const held = await must(perform(claim, { taskId: task.id, version: task.version }, ctx));
  const started = await must(perform(start, { taskId: task.id, version: held.version }, ctx));
  const parked = await must(perform(renew, { taskId: task.id, version: started.version, spend: 12 }, ctx));
  expect(parked.status).toBe("awaiting_input");

  const short = await runCli(["task", "raise-budget", task.id, "--version", String(parked.version), "--add", "1"], database.url);
  expect(short.code).not.toBe(0);
  expect(short.stderr.trim().split("\n")).toHaveLength(1);
  expect(short.stderr).toMatch(/add must lift the limit above what was spent \(12 of 10 tokens\)/);
  const bad = await runCli(["task", "raise-budget", task.id, "--version", String(parked.version), "--add", "lots"], database.url);
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toMatch(/--add must be a number/);
  expect(await taskRow(database.db, task.id)).toMatchObject({ status: "awaiting_input", budgetLimit: 10, version: parked.version });

  const raised = await runCli(["task", "raise-budget", task.id, "--version", String(parked.version), "--add", "5"], database.url);
  expect(raised, raised.stderr).toMatchObject({ code: 0, stdout: expect.stringContaining(`task ${task.id} is started`) });
  expect(raised.stdout).toContain("budget 15 tokens, 12 spent");
});

test("an operator sets and lifts an agent token's monthly cap", async () => {
  await createAgentToken(database.db, { name: "metered-bot" });
  const cap = async () => (await database.db.execute<{ limit: string | null; unit: string | null }>(sql`
    SELECT monthly_budget_limit AS limit, monthly_budget_unit AS unit FROM agent_tokens WHERE name = 'metered-bot'`))[0];
  const set = await runCli(["token", "budget", "--name", "metered-bot", "--limit", "500", "--unit", "usd_cents"], database.url);
  expect(set, set.stderr).toMatchObject({ code: 0, stdout: expect.stringContaining("may spend 500 usd_cents a month") });
  expect(await cap()).toEqual({ limit: "500", unit: "usd_cents" });
  const zero = await runCli(["token", "budget", "--name", "metered-bot", "--limit", "0", "--unit", "usd_cents"], database.url);
  expect(zero.code).not.toBe(0);
  expect(zero.stderr).toMatch(/--limit must be greater than 0/);
  const both = await runCli(["token", "budget", "--name", "metered-bot", "--lift", "--limit", "3"], database.url);
  expect(both.code).not.toBe(0);
  const unknown = await runCli(["token", "budget", "--name", "nobody-here", "--lift"], database.url);
  expect(unknown.stderr).toMatch(/no live token named nobody-here/);
  const lifted = await runCli(["token", "budget", "--name", "metered-bot", "--lift"], database.url);
  expect(lifted, lifted.stderr).toMatchObject({ code: 0, stdout: expect.stringContaining("has no monthly cap") });
  expect(await cap()).toEqual({ limit: null, unit: null });
});
