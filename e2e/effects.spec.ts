import { sql } from "drizzle-orm";
import { claim, createActor, failTask, perform, recordEffect, setQueueSettings, start } from "../lib/tasks";
import { AMAL, SARA } from "./people";
import { expect, signIn, test } from "./fixtures";
import { makeTask, must } from "./seed";

// Issue 22: a person takes over a task whose agent froze mid-charge, says what became of the
// unknown effect on the task page, and then completes the task.

test.describe("the effect ledger on the task page", () => {
  test("a person resolves an unknown effect (it happened, with a reference) and then completes the task", async ({ page, db, queue, actorOf }) => {
    const title = `Charge order 7 ${queue}`;
    const agent = await createActor(db, "agent", `payer-${Math.random().toString(36).slice(2, 6)}`);
    let task = await makeTask(db, await actorOf(SARA), { title, queue });
    task = must(await perform(claim, { taskId: task.id, version: task.version }, { db, actor: agent }));
    task = must(await perform(start, { taskId: task.id, version: task.version }, { db, actor: agent }));
    const { effect } = must(await perform(recordEffect, { taskId: task.id, version: task.version, name: "Charge the card", key: "order-7", target: "https://pay.test" }, { db, actor: agent }));
    await db.execute(sql`UPDATE tasks SET lease_until = now() - interval '5 seconds' WHERE id = ${task.id}::bigint`); // the agent froze

    await signIn(page, AMAL, `/tasks/${task.id}`);
    await page.getByRole("button", { name: "Claim" }).click();
    await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "claimed");
    const ledger = page.getByRole("region", { name: "Effects outside the board" });
    const item = ledger.getByRole("listitem", { name: "Charge the card: unknown" });
    await expect(item).toContainText(effect.idempotencyKey);
    await expect(item).toContainText(agent.name);

    await page.getByRole("button", { name: "Start" }).click();
    await page.getByRole("dialog", { name: "Check before starting" }).getByRole("button", { name: "I've checked — start" }).click();
    await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "started");
    // The page shows its prediction at once; the act is the server's once it answers (leaving
    // the page before then would drop a server action still queued behind the page's reads).
    await expect.poll(async () => (await db.execute<{ status: string }>(sql`SELECT status FROM tasks WHERE id = ${task.id}::bigint`))[0]?.status).toBe("started");

    // The board marks the task while its effect is unknown.
    await page.goto(`/?queue=${queue}`);
    await expect(page.getByText("effect unknown")).toBeVisible();
    await page.goto(`/tasks/${task.id}`);
    await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "started");

    await item.getByLabel("Reference in the other system (optional)").fill("ch_77");
    await item.getByRole("button", { name: "It happened" }).click();
    await expect(ledger).toBeHidden(); // nothing open any more
    await page.goto(`/?queue=${queue}`);
    await expect(page.getByRole("heading", { name: title }).or(page.getByText(title)).first()).toBeVisible();
    await expect(page.getByText("effect unknown")).toHaveCount(0);
    await page.goto(`/tasks/${task.id}`);
    await page.getByRole("button", { name: "Complete" }).click();
    await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "done");
    const [row] = await db.execute<{ state: string; external_ref: string }>(sql`SELECT state, external_ref FROM task_effects WHERE id = ${effect.id}::bigint`);
    expect(row).toEqual({ state: "applied", external_ref: "ch_77" });
  });

  test("the inbox shows an escalated task's open effects; a supervisor says it did not happen there", async ({ page, db, queue, actorOf }) => {
    const sara = await actorOf(SARA);
    must(await perform(setQueueSettings, { queue, maxFailures: 1 }, { db, actor: sara }));
    const title = `Refund order 9 ${queue}`;
    const agent = await createActor(db, "agent", `refunder-${Math.random().toString(36).slice(2, 6)}`);
    let task = await makeTask(db, sara, { title, queue });
    task = must(await perform(claim, { taskId: task.id, version: task.version }, { db, actor: agent }));
    task = must(await perform(start, { taskId: task.id, version: task.version }, { db, actor: agent }));
    const { effect } = must(await perform(recordEffect, { taskId: task.id, version: task.version, name: "Refund the card", key: "refund-9" }, { db, actor: agent }));
    task = must(await perform(failTask, { taskId: task.id, version: task.version, reason: "the provider timed out" }, { db, actor: agent }));
    expect(task.status).toBe("escalated");

    await signIn(page, SARA, `/inbox?queue=${queue}`);
    const card = page.getByRole("article", { name: title });
    // The row says an effect is open; its ledger is under Details.
    await expect(card).toContainText("1 open effect");
    await card.getByRole("button", { name: `Details of ${title}` }).click();
    const ledger = card.getByRole("region", { name: "Effects outside the board" });
    const item = ledger.getByRole("listitem", { name: "Refund the card: unknown" });
    await expect(item).toContainText(effect.idempotencyKey);
    await item.getByRole("button", { name: "It did not happen" }).click();
    await expect(ledger).toBeHidden();
    await expect(card).toBeVisible(); // still escalated: the supervisor decides next
    const [row] = await db.execute<{ state: string }>(sql`SELECT state FROM task_effects WHERE id = ${effect.id}::bigint`);
    expect(row).toEqual({ state: "failed" });
  });
});
