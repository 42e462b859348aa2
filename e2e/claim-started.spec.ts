import { createAgentToken } from "../lib/auth/tokens";
import { AMAL, SARA } from "./people";
import { expect, pageAs, test } from "./fixtures";
import { makeTask } from "./seed";

// One act, one event (docs/api.md): an agent's claim with start is one `claimed` event with
// `started: true`, and the task page's history says so in one line.

test("a claim with start reads 'claimed and started it', one line of its attempt", async ({ browser, db, queue, request, actorOf }) => {
  const task = await makeTask(db, await actorOf(SARA), { title: `Rotate the keys ${queue}`, queue });
  const name = `robot-${queue}-${Math.random().toString(36).slice(2, 6)}`;
  const { token } = await createAgentToken(db, { name, role: "agent" });
  const response = await request.post("/api/v1/claims", { headers: { Authorization: `Bearer ${token}` }, data: { queue, start: true } });
  expect(response.status()).toBe(200);
  expect((await response.json()) as unknown).toMatchObject({ task: { id: task.id, status: "started", version: 2 } });

  const page = await pageAs(browser, AMAL, `/tasks/${task.id}`);
  const attempt = page.getByRole("region", { name: "History" }).getByRole("region", { name: "Attempt 1" });
  await expect(attempt.getByTestId("event")).toHaveCount(1);
  await expect(attempt.getByTestId("event")).toContainText(name);
  await expect(attempt.getByTestId("event")).toContainText("claimed and started it");
  await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "started");
  await page.context().close();
});
