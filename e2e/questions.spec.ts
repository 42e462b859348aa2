import { createAgentToken } from "../lib/auth/tokens";
import { AMAL } from "./people";
import { expect, signIn, test } from "./fixtures";

// Issue 23: an agent asks a person over HTTP; the question appears live in a staff member's
// Questions page, the person answers with a choice button, and the agent's long-poll gets it.

test.describe("asking a person", () => {
  test("an agent's question appears live, a staff member answers with a choice, the agent's long-poll returns the answer", async ({ page, db, queue, request }) => {
    const { token } = await createAgentToken(db, { name: `asker-${queue}` });
    const auth = { Authorization: `Bearer ${token}` };
    await signIn(page, AMAL, "/questions");
    await expect(page.getByRole("heading", { name: "Questions for a person", level: 1 })).toBeVisible();

    const created = await (await request.post("/api/v1/tasks", { headers: auth, data: { title: `Refund order 9 ${queue}`, queue } })).json();
    const claimed = await (await request.post(`/api/v1/tasks/${created.task.id}/claim`, { headers: auth, data: { version: created.task.version } })).json();
    const started = await (await request.post(`/api/v1/tasks/${created.task.id}/start`, { headers: auth, data: { version: claimed.task.version } })).json();
    const asked = await request.post(`/api/v1/tasks/${created.task.id}/questions`, {
      headers: auth, data: { version: started.task.version, question: `Refund in full? ${queue}`, choices: ["Approve", "Decline"] },
    });
    expect(asked.status()).toBe(201);
    const { question } = await asked.json();

    // Live: no reload between the ask and the question on the page.
    const item = page.getByTestId(`question-${question.id}`);
    await expect(item).toContainText(`Refund in full? ${queue}`);
    await expect(item).toContainText(`asker-${queue}`);
    // Too long an answer is counted, said, and not sent (never cut short by the box).
    const own = item.getByLabel("Or answer in your own words");
    await own.fill("x".repeat(4001));
    await expect(item.getByTestId("char-count")).toContainText("1 too many");
    await expect(item.getByRole("button", { name: "Answer" })).toBeDisabled();
    await own.fill("");
    const polling = request.get(`/api/v1/tasks/${created.task.id}/questions/${question.id}?wait=30`, { headers: auth, timeout: 45_000 });
    await item.getByRole("button", { name: "Approve" }).click();
    await expect(item).toHaveCount(0); // answered: it leaves the list

    const polled = await polling;
    expect(polled.status()).toBe(200);
    expect((await polled.json()).question.answer).toMatchObject({ text: "Approve", choice: "Approve", by: { name: AMAL.name } });
    const task = await (await request.get(`/api/v1/tasks/${created.task.id}`, { headers: auth })).json();
    expect(task.task).toMatchObject({ status: "started", owner: { name: `asker-${queue}` } });

    // The task page keeps question and answer.
    await page.goto(`/tasks/${created.task.id}`);
    await expect(page.getByTestId("question-answer")).toContainText("Approve");
  });
});
