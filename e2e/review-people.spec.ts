import AxeBuilder from "@axe-core/playwright";
import { eq } from "drizzle-orm";
import { queues } from "../db/schema";
import { claim, start } from "../lib/tasks";
import { AMAL, SARA } from "./people";
import { expect, pageAs, signIn, test } from "./fixtures";
import { makeTask, must } from "./seed";
import { perform } from "../lib/tasks";

// Review people can do: in a queue that reviews everyone, a person's Complete is "Submit for
// review" with a summary and links; the reviewer reads it rendered (Markdown, a clickable
// https link, never HTML) and approves it; the inbox's bulk list shows each submission.

const axeClean = async (page: import("@playwright/test").Page) => {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21aa"]).analyze();
  expect(results.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
};

test("a reviewer approves a person's submission, seeing its summary", async ({ browser, page, db, queue, actorOf }) => {
  await db.update(queues).set({ review: "everyone" }).where(eq(queues.name, queue));
  const amal = await actorOf(AMAL);
  let task = await makeTask(db, await actorOf(SARA), { title: `Write the pets clause ${queue}`, queue });
  task = must(await perform(claim, { taskId: task.id, version: task.version }, { db, actor: amal }));
  task = must(await perform(start, { taskId: task.id, version: task.version }, { db, actor: amal }));

  const worker = await pageAs(browser, AMAL, `/tasks/${task.id}`);
  await worker.getByRole("button", { name: "Submit for review…" }).click();
  const dialog = worker.getByRole("dialog", { name: /Submit .* for review/ });
  // An empty summary is refused in words before anything is sent.
  await dialog.getByRole("button", { name: "Submit for review" }).click();
  await expect(dialog.getByText("Say what you did")).toBeVisible();
  await dialog.getByLabel("Summary").fill("Added the **pets** clause <script>alert(1)</script>");
  await dialog.getByLabel("Links (one per line)").fill("https://example.com/pr/42\njavascript:alert(1)");
  await dialog.getByRole("button", { name: "Submit for review" }).click();
  await expect(dialog.getByText(/Link 2 is not an http\(s\) address/)).toBeVisible();
  await dialog.getByLabel("Links (one per line)").fill("https://example.com/pr/42");
  await dialog.getByRole("button", { name: "Submit for review" }).click();
  await expect(worker.getByTestId("task-status")).toHaveAttribute("data-status", "in_review");
  await worker.setViewportSize({ width: 1440, height: 900 });
  await worker.screenshot({ path: test.info().outputPath("review-submitted-1440.png"), fullPage: true });
  await worker.close();

  await signIn(page, SARA, `/tasks/${task.id}`);
  const panel = page.getByRole("region", { name: "Waiting for review" });
  const result = panel.getByTestId("submission-result");
  await expect(result.locator("strong")).toHaveText("pets");
  await expect(result).toContainText("<script>alert(1)</script>"); // as text, not markup
  await expect(result.locator("script")).toHaveCount(0);
  await expect(result.getByRole("link", { name: "https://example.com/pr/42" })).toHaveAttribute("href", "https://example.com/pr/42");
  await expect(panel.getByTestId("submission-digest")).toBeHidden(); // the digest on request
  await panel.getByText("Digest").click();
  await expect(panel.getByTestId("submission-digest")).toBeVisible();
  await axeClean(page);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: test.info().outputPath("review-panel-390.png"), fullPage: true });
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: test.info().outputPath("review-panel-1440.png"), fullPage: true });

  // The inbox's bulk list shows the submission beside the box that selects it.
  await page.goto(`/inbox?queue=${queue}`);
  await expect(page.getByTestId(`in-review-result-${task.id}`)).toContainText("Added the pets clause");
  await page.screenshot({ path: test.info().outputPath("inbox-review-1440.png"), fullPage: true });

  await page.goto(`/tasks/${task.id}`);
  await panel.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "done");
});
