import AxeBuilder from "@axe-core/playwright";
import { sql } from "drizzle-orm";
import { askQuestion, claim, createActor, createTask, perform, recordEffect, start } from "../lib/tasks";
import { AMAL, SARA } from "./people";
import { expect, signIn, test } from "./fixtures";
import { must } from "./seed";

// The board shows what the engine knows: a task another holder's reservation blocks says who
// holds what and offers no Claim, and Claim next steps over it; a lapsed task with open
// effects says what may have happened before anyone claims, and resolving the effect is the
// check (Start asks nothing more); the Awaiting input column renders what it counts.

const robot = (db: Parameters<typeof createActor>[0]) => createActor(db, "agent", `robot-${Math.random().toString(36).slice(2, 6)}`);
const axeClean = async (page: import("@playwright/test").Page) => {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21aa"]).analyze();
  expect(results.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
};

test("a reserved task has no Claim and Claim next skips it", async ({ page, db, queue, actorOf }) => {
  const sara = await actorOf(SARA);
  const agent = await robot(db);
  let holder = must(await perform(createTask, { title: `Edit tenancy ${queue}`, queue, priority: 1, reserves: [{ resource: "templates/tenancy/**", mode: "exclusive" }] }, { db, actor: sara }));
  holder = must(await perform(claim, { taskId: holder.id, version: holder.version }, { db, actor: agent }));
  const blocked = must(await perform(createTask, { title: `Pets clause ${queue}`, queue, priority: 9, reserves: [{ resource: "templates/tenancy/pets.md", mode: "exclusive" }] }, { db, actor: sara }));
  const free = must(await perform(createTask, { title: `Free task ${queue}`, queue, priority: 5 }, { db, actor: sara }));

  await signIn(page, AMAL, `/?queue=${queue}`);
  const card = page.getByTestId(`task-${blocked.id}`);
  await expect(card.getByTestId("reserved-by")).toContainText(`Reserved by #${holder.id} (${agent.name}): templates/tenancy/**`);
  await expect(card.getByRole("button", { name: "Claim" })).toHaveCount(0);
  await expect(page.getByTestId(`task-${free.id}`).getByRole("button", { name: "Claim" })).toBeVisible();
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: test.info().outputPath("board-reserved-1440.png"), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: test.info().outputPath("board-reserved-390.png"), fullPage: true });
  await page.setViewportSize({ width: 1440, height: 900 });
  await axeClean(page);

  await page.getByRole("button", { name: `Claim next in ${queue}` }).click();
  await expect(page.getByRole("status").or(page.getByRole("alert")).filter({ hasText: "You claimed" })).toContainText(`Free task ${queue}`);
  const [row] = await db.execute<{ status: string }>(sql`SELECT status::text FROM tasks WHERE id = ${blocked.id}::bigint`);
  expect(row!.status).toBe("queued");

  // The task page says why there is no Claim, in the engine's words.
  await page.goto(`/tasks/${blocked.id}`);
  await expect(page.getByTestId("why-no-actions")).toContainText(`#${holder.id} (${agent.name}) holds templates/tenancy/**`);
});

test("resolving a lapsed task's unknown effect lets Start proceed without a second check", async ({ page, db, queue, actorOf }) => {
  const agent = await robot(db);
  let task = must(await perform(createTask, { title: `Refund order 9 ${queue}`, queue }, { db, actor: await actorOf(SARA) }));
  task = must(await perform(claim, { taskId: task.id, version: task.version }, { db, actor: agent }));
  task = must(await perform(start, { taskId: task.id, version: task.version }, { db, actor: agent }));
  must(await perform(recordEffect, { taskId: task.id, version: task.version, name: "Refund the card", key: "order-9" }, { db, actor: agent }));
  await db.execute(sql`UPDATE tasks SET lease_until = now() - interval '5 seconds' WHERE id = ${task.id}::bigint`); // the agent froze

  // Before anyone claims, the card says what may have happened.
  await signIn(page, AMAL, `/?queue=${queue}`);
  const card = page.getByTestId(`task-${task.id}`);
  await expect(card.getByTestId("lapsed-effects")).toContainText("Refund the card (order-9)");
  await page.screenshot({ path: test.info().outputPath("board-lapsed-effects.png"), fullPage: true });

  await page.goto(`/tasks/${task.id}`);
  await page.getByRole("button", { name: "Claim" }).click();
  await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "claimed");
  const ledger = page.getByRole("region", { name: "Effects outside the board" });
  await ledger.getByRole("listitem", { name: "Refund the card: unknown" }).getByRole("button", { name: "It happened" }).click();
  await expect(ledger).toBeHidden();
  await page.getByRole("button", { name: "Start" }).click();
  await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "started");
  await expect(page.getByRole("dialog", { name: "Check before starting" })).toHaveCount(0);
  const types = await db.execute<{ type: string }>(sql`SELECT type::text FROM task_events WHERE task_id = ${task.id}::bigint ORDER BY id`);
  expect(types.map((r) => r.type)).not.toContain("check_confirmed");
});

test("the Awaiting input column shows the card it counts, without a reload", async ({ page, db, queue, actorOf }) => {
  const agent = await robot(db);
  let task = must(await perform(createTask, { title: `Ask about pets ${queue}`, queue }, { db, actor: await actorOf(SARA) }));
  task = must(await perform(claim, { taskId: task.id, version: task.version }, { db, actor: agent }));
  task = must(await perform(start, { taskId: task.id, version: task.version }, { db, actor: agent }));
  await signIn(page, AMAL, `/?queue=${queue}`);
  await expect(page.getByTestId(`task-${task.id}`)).toBeVisible();
  await expect(page.getByTestId("column-awaiting_input")).toHaveCount(0); // shown only while a task waits in it
  must(await perform(askQuestion, { taskId: task.id, version: task.version, question: "Are cats pets?" }, { db, actor: agent }));
  const column = page.getByTestId("column-awaiting_input");
  await expect(column.getByTestId("count-awaiting_input")).toContainText("1");
  await expect(column.getByTestId(`task-${task.id}`)).toBeVisible();
  await expect(column.getByText("Nothing here.")).toHaveCount(0);
});
