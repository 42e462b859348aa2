import { AMAL, SARA } from "./people";
import { expect, live, signIn, test } from "./fixtures";
import { makeTask } from "./seed";

// Issue 27 item 4: one row of filters (a query box and chips), the active filters as
// removable pills, and the cards right under it — no form chrome in between.

test("the query box filters by key:value words, each active filter a removable pill, all in the URL", async ({ page, db, queue, actorOf }) => {
  const sara = await actorOf(SARA);
  await makeTask(db, sara, { title: `Boiler low ${queue}`, queue, priority: 2 });
  await makeTask(db, sara, { title: `Boiler urgent ${queue}`, queue, priority: 8 });
  await makeTask(db, sara, { title: `Window urgent ${queue}`, queue, priority: 9 });
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, AMAL);
  await live(page);

  // One row: the filters are no taller than a chip, and the first card sits right below.
  const form = page.getByRole("search", { name: "Filter tasks" });
  expect((await form.boundingBox())!.height).toBeLessThanOrEqual(40);
  const firstColumn = page.getByRole("region", { name: "Queued" });
  const header = (await page.locator("header").first().boundingBox())!;
  expect((await firstColumn.boundingBox())!.y - (header.y + header.height)).toBeLessThanOrEqual(90);

  const box = page.getByRole("searchbox", { name: /^Search or filter/ });
  await box.fill(`status:queued queue:${queue} priority:>5 boiler`);
  await box.press("Enter");
  await expect(page).toHaveURL(new RegExp(`queue=${queue}`));
  await expect(page).toHaveURL(/status=queued/);
  await expect(page).toHaveURL(/priority=6/);
  await expect(page).toHaveURL(/q=boiler/);
  await expect(box).toHaveValue("boiler"); // the filter words became pills
  const pills = page.getByRole("list", { name: "Active filters" });
  await expect(pills.getByRole("button")).toHaveText([/status:queued/, new RegExp(`queue:${queue}`), /priority:>=6/, /Clear filters/]);
  await expect(page.getByLabel("Status", { exact: true })).toHaveValue("queued");
  const queued = page.getByRole("region", { name: "Queued" });
  await expect(queued.getByRole("article")).toHaveText([new RegExp(`Boiler urgent ${queue}`)]);

  // A pill removes its filter (a history entry: Back puts it back); the URL survives a reload.
  await pills.getByRole("button", { name: "Remove filter priority:>=6" }).click();
  await expect(page).not.toHaveURL(/priority=/);
  await expect(queued.getByRole("article")).toHaveCount(2);
  await page.goBack();
  await expect(page).toHaveURL(/priority=6/);
  await expect(queued.getByRole("article")).toHaveCount(1);
  await page.reload();
  await expect(pills.getByRole("button", { name: "Remove filter priority:>=6" })).toBeVisible();
  await expect(box).toHaveValue("boiler");

  // A mistyped queue is refused in words, with the near name, and stays in the box.
  await box.fill(`boiler queue:${queue.slice(0, -1)}`);
  await box.press("Enter");
  await expect(page.getByTestId("query-error")).toContainText(`Did you mean “${queue}”?`);
  await expect(box).toHaveValue(`boiler queue:${queue.slice(0, -1)}`);

  await pills.getByRole("button", { name: "Clear filters" }).click();
  await expect(page).toHaveURL(/\/\?q=boiler$/);
  await expect(pills).toHaveCount(0);
});

test("the chips set the same filters as the words, and an empty column is collapsed to its heading", async ({ page, db, queue, actorOf }) => {
  const sara = await actorOf(SARA);
  await makeTask(db, sara, { title: `Only one ${queue}`, queue });
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, AMAL, `/?queue=${queue}`);
  await page.getByLabel("Owner").selectOption("none");
  await expect(page).toHaveURL(/owner=none/);
  await expect(page.getByRole("list", { name: "Active filters" }).getByRole("button", { name: "Remove filter owner:none" })).toBeVisible();
  const claimed = page.getByRole("region", { name: "Claimed" });
  await expect(claimed).toHaveAttribute("data-empty", "true");
  const queued = page.getByRole("region", { name: "Queued" });
  expect((await claimed.boundingBox())!.height).toBeLessThan((await queued.boundingBox())!.height);
});

