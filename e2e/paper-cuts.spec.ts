import { sql } from "drizzle-orm";
import { AMAL, SARA } from "./people";
import { expect, signIn, test } from "./fixtures";

// Issue 27 item 10 as a person meets it: limited fields count instead of cutting a paste
// short, every wrong field says so on itself at once (no browser bubble), "Create more"
// keeps the form for the next task, empty pages name what to do, and the API reference
// has its contents, this server's address and the MCP tools.

const titlesIn = async (db: Parameters<Parameters<typeof test>[2]>[0]["db"], queue: string) =>
  (await db.execute<{ title: string }>(sql`SELECT title FROM tasks WHERE queue = ${queue} ORDER BY id`)).map((r) => r.title);

test("the new-task form counts, refuses every wrong field at once in words, and creates more on the same queue", async ({ page, db, queue }) => {
  await signIn(page, AMAL, `/?queue=${queue}`);
  // An empty queue's board names the action, and the action opens the form on that queue.
  const empty = page.getByTestId("board-empty");
  await expect(empty).toContainText(`Queue ${queue} has no tasks yet.`);
  await empty.getByRole("button", { name: "Create a task" }).click();
  const form = page.getByRole("form", { name: "New task" });
  await expect(form.getByLabel("Queue")).toHaveValue(queue);

  const title = form.getByLabel("Title");
  const long = `Check every radiator on floors one to nine ${queue} `.repeat(5);
  await title.fill(long); // a paste longer than the limit stays whole: no silent cut
  await expect(title).toHaveValue(long);
  await expect(form.getByTestId("char-count").first()).toContainText(`${long.length} / 200: ${long.length - 200} too many`);
  await expect(title).toHaveAttribute("aria-invalid", "true");
  await form.getByLabel("Priority").fill("5000");
  await form.getByRole("button", { name: "Create task" }).click();
  await expect(form.getByRole("alert")).toHaveText("2 fields need fixing: see the fields marked above.");
  await expect(title).toHaveAccessibleDescription(new RegExp(`The title is ${long.trim().length} characters; at most 200 fit\\.`));
  await expect(form.getByLabel("Priority")).toHaveAccessibleDescription(/The priority must be a whole number from -1000 to 1000\./);
  await expect(title).toBeFocused();
  // The form is noValidate: the browser's own bubble never shows.
  expect(await form.evaluate((f) => (f as HTMLFormElement).noValidate)).toBe(true);
  expect(await titlesIn(db, queue)).toEqual([]);

  await title.fill(`Bleed radiators ${queue}`);
  await form.getByLabel("Priority").fill("3");
  await form.getByLabel("Create more").check();
  await form.getByRole("button", { name: "Create task" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Created “Bleed radiators ${queue}”` })).toContainText(`in ${queue}`);
  // Still open, on the same queue and priority, the title empty and ready for the next one.
  await expect(form).toBeVisible();
  await expect(title).toHaveValue("");
  await expect(title).toBeFocused();
  await expect(form.getByLabel("Queue")).toHaveValue(queue);
  await expect(form.getByLabel("Priority")).toHaveValue("3");
  await page.keyboard.type(`Check the boiler ${queue}`);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status").filter({ hasText: `Created “Check the boiler ${queue}”` })).toBeVisible();
  await expect(page.getByRole("region", { name: "Queued" }).getByRole("article")).toHaveCount(2);
  await expect(page.getByTestId("board-empty")).toBeHidden();
  expect(await titlesIn(db, queue)).toEqual([`Bleed radiators ${queue}`, `Check the boiler ${queue}`]);
  const priorities = await db.execute<{ priority: number }>(sql`SELECT priority FROM tasks WHERE queue = ${queue}`);
  expect(priorities.map((p) => p.priority)).toEqual([3, 3]);
});

test("an empty inbox says there is nothing to decide and leads to the board", async ({ page, queue }) => {
  await signIn(page, SARA, `/inbox?queue=${queue}`);
  const empty = page.getByTestId("inbox-empty");
  await expect(empty).toContainText(`Nothing is escalated in ${queue}.`);
  await empty.getByRole("link", { name: "the board" }).click();
  await expect(page).toHaveURL(new RegExp(`/\\?queue=${queue}$`));
});

test("the API reference has a table of contents, this server's address and the MCP tools", async ({ page, baseURL }) => {
  await signIn(page, AMAL, "/api-reference");
  const origin = new URL(baseURL!).origin;
  await expect(page.getByTestId("base-url")).toHaveText(`${origin}/api/v1`);
  await expect(page.locator("pre").first()).toContainText(`BASE=${origin}/api/v1`);
  const contents = page.getByRole("navigation", { name: "On this page" });
  await expect(contents.getByRole("link", { name: "Tasks endpoints" })).toBeVisible();
  await contents.getByRole("link", { name: "MCP: tools for AI agents" }).click();
  await expect(page).toHaveURL(/#mcp-heading$/);
  const mcp = page.getByRole("region", { name: "MCP: tools for AI agents" });
  await expect(mcp.getByRole("heading", { name: "MCP: tools for AI agents" })).toBeInViewport();
  await expect(mcp).toContainText(`POST ${origin}/api/mcp`);
  const tools = mcp.getByRole("table");
  await expect(tools.getByRole("row", { name: /list_queues/ })).toContainText("GET /tasks/counts");
  await expect(tools.getByRole("row", { name: /claim_next_task/ })).toContainText("sets the lease");
  // Each tool's endpoint links to its entry further down.
  await tools.getByRole("row", { name: /complete_task/ }).getByRole("link").click();
  await expect(page.locator("[id='completeTask']")).toBeInViewport();
});
