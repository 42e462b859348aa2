import { createAgentToken } from "../lib/auth/tokens";
import { SARA } from "./people";
import { expect, signIn, test } from "./fixtures";

// Issue 24, budgets: an agent reports spend over HTTP while a supervisor watches the task page;
// the bar fills live, the task parks at its limit, and the supervisor's raise lets the agent go on.

test.describe("budgets", () => {
  test("a budget bar fills as an agent reports spend; at the limit the supervisor raises it and the agent goes on", async ({ page, db, queue, request }) => {
    const { token } = await createAgentToken(db, { name: `spender-${queue}` });
    const auth = { Authorization: `Bearer ${token}` };
    const created = await (await request.post("/api/v1/tasks", {
      headers: auth, data: { title: `Summarise the logs ${queue}`, queue, budget: { limit: 100, unit: "usd_cents" } },
    })).json();
    const id = created.task.id as string;
    const claimed = await (await request.post(`/api/v1/tasks/${id}/claim`, { headers: auth, data: { version: created.task.version } })).json();
    let task = (await (await request.post(`/api/v1/tasks/${id}/start`, { headers: auth, data: { version: claimed.task.version } })).json()).task;

    await signIn(page, SARA, `/tasks/${id}`);
    const bar = page.getByRole("meter", { name: "Budget" });
    await expect(bar).toHaveAttribute("aria-valuenow", "0");
    await expect(page.getByTestId("budget-bar")).toContainText("0 of 100 usd_cents spent");

    const beat = async (spend: number) => {
      const response = await request.post(`/api/v1/tasks/${id}/heartbeat`, { headers: auth, data: { version: task.version, spend } });
      expect(response.status()).toBe(200);
      task = (await response.json()).task;
    };
    // Live: no reload between a heartbeat and the bar.
    await beat(40);
    await expect(bar).toHaveAttribute("aria-valuenow", "40");
    await beat(45);
    await expect(bar).toHaveAttribute("aria-valuenow", "85");
    await expect(page.getByTestId("budget-bar")).toContainText("85 of 100 usd_cents spent");
    await beat(20);
    expect(task).toMatchObject({ status: "awaiting_input", spent: 105, owner: { name: `spender-${queue}` } });
    await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "awaiting_input");
    await expect(page.getByTestId("task-questions")).toContainText("Budget reached");

    // The supervisor's raise; too little is refused in the app's words.
    const add = page.getByLabel("Add to the limit (usd_cents)");
    await add.fill("3");
    await page.getByRole("button", { name: "Raise budget" }).click();
    await expect(page.getByTestId("task-questions").getByRole("alert")).toContainText("add must lift the limit above what was spent");
    await add.fill("50");
    await page.getByRole("button", { name: "Raise budget" }).click();
    await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "started");
    await expect(page.getByTestId("budget-bar")).toContainText("105 of 150 usd_cents spent");

    // The agent goes on with the same attempt (and fence) at the task's new version.
    const now = (await (await request.get(`/api/v1/tasks/${id}`, { headers: auth })).json()).task;
    const after = await request.post(`/api/v1/tasks/${id}/heartbeat`, { headers: auth, data: { version: now.version, spend: 5 } });
    expect(after.status()).toBe(200);
    expect((await after.json()).task).toMatchObject({ status: "started", spent: 110, attempt: task.attempt, fence: task.fence });
    await expect(bar).toHaveAttribute("aria-valuenow", "110");
  });
});

test.describe("an agent's monthly cap", () => {
  test("a supervisor sets a token's monthly budget on /agents; a bad limit is said on the dialog; the month shows against the cap", async ({ page, db, queue }) => {
    const name = `capped-${queue}`;
    await createAgentToken(db, { name });
    await signIn(page, SARA, "/agents");
    const row = page.getByRole("row", { name: new RegExp(name) });
    await expect(row.getByTestId("token-month")).toHaveText("nothing (no cap)");
    await row.getByRole("button", { name: `Monthly budget of ${name}` }).click();
    const dialog = page.getByRole("dialog", { name: `Monthly budget of ${name}` });
    await dialog.getByLabel("Limit a month").fill("0");
    await dialog.getByLabel("Unit").fill("usd_cents");
    await dialog.getByRole("button", { name: "Set budget" }).click();
    await expect(dialog.getByRole("alert")).toContainText("Limit: enter a number greater than 0.");
    await dialog.getByLabel("Limit a month").fill("500");
    await dialog.getByRole("button", { name: "Set budget" }).click();
    await expect(dialog).toBeHidden();
    await expect(row.getByTestId("token-month")).toHaveText("0 of 500 usd_cents");
    // The change is on the record, amount and all.
    await expect(page.getByRole("region", { name: "Changes to tokens" })).toContainText(`set the monthly budget of ${name} to 500 usd_cents`);
  });
});
