import { AMAL, BILAL, SARA } from "./people";
import { expect, pageAs, signIn, test } from "./fixtures";
import { complete, perform } from "../lib/tasks";
import { claimAs, makeTask, must, startAs } from "./seed";

// The board at team scale (issue 15): live counts, search, filters and view in the URL, the
// list view, the keys, and a phone that puts your own tasks first.

test("the sign-in page hints at no demo accounts here: this server was not an embedded first start", async ({ page }) => {
  await page.goto("/login");
  await expect(page.getByRole("button", { name: "Sign in" })).toBeEnabled();
  await expect(page.getByTestId("demo-logins")).toHaveCount(0);
});

test.describe("the board at team scale", () => {
  test("counts on every column change live in a second browser", async ({ page, browser, db, queue, actorOf }) => {
    const sara = await actorOf(SARA);
    await makeTask(db, sara, { title: `Count one ${queue}`, queue });
    await makeTask(db, sara, { title: `Count two ${queue}`, queue });
    await signIn(page, AMAL, `/?queue=${queue}`);
    await expect(page.getByTestId("count-queued")).toHaveText(/^2\s*2 tasks$/);
    await expect(page.getByTestId("count-claimed")).toHaveText(/^0/);
    await expect(page.getByTestId("filter-count")).toContainText("2 tasks match");

    const bilal = await pageAs(browser, BILAL, `/?queue=${queue}`);
    await bilal.getByRole("region", { name: "Queued" }).getByRole("article", { name: `Count one ${queue}` }).getByRole("button", { name: "Claim" }).click();
    await expect(page.getByTestId("count-queued")).toHaveText(/^1\s*1 task$/);
    await expect(page.getByTestId("count-claimed")).toHaveText(/^1/);
    await makeTask(db, sara, { title: `Count three ${queue}`, queue });
    await expect(page.getByTestId("count-queued")).toHaveText(/^2/);
    // The queue picker counts the queue's open tasks too.
    await expect(page.getByLabel("Queue", { exact: true }).locator(`option[value="${queue}"]`)).toHaveText(`${queue} (3 open)`);
    await bilal.context().close();
  });

  test("'/' focuses the search, which narrows the board as you type; Back undoes a filter", async ({ page, db, queue, actorOf }) => {
    const sara = await actorOf(SARA);
    await makeTask(db, sara, { title: `Boiler pressure ${queue}`, queue, description: "Read the gauge" });
    await makeTask(db, sara, { title: `Window latch ${queue}`, queue, payload: { unit: "4B", part: "latch-77" } });
    await signIn(page, AMAL, `/?queue=${queue}`);
    const queued = page.getByRole("region", { name: "Queued" });
    await expect(queued.getByRole("article")).toHaveCount(2);

    await page.keyboard.press("/");
    await expect(page.getByLabel(/^Search/)).toBeFocused();
    await page.keyboard.type("gau"); // a prefix of a word of the description
    await expect(page).toHaveURL(/q=gau/);
    await expect(queued.getByRole("article")).toHaveText([new RegExp(`Boiler pressure ${queue}`)]);
    await page.getByLabel(/^Search/).fill("latch-77"); // a payload value
    await expect(queued.getByRole("article")).toHaveText([new RegExp(`Window latch ${queue}`)]);
    await expect(page.getByTestId("filter-count")).toContainText("1 task matches");

    await page.getByLabel("Priority").selectOption("high");
    await expect(page).toHaveURL(/priority=high/);
    await expect(queued).toContainText("Nothing here.");
    await page.goBack();
    await expect(page).not.toHaveURL(/priority=high/);
    await expect(page.getByLabel("Priority")).toHaveValue("");
    await expect(queued.getByRole("article")).toHaveCount(1);
  });

  test("filters, sort and the list view survive a reload; the view is remembered per person", async ({ page, db, queue, actorOf }) => {
    const sara = await actorOf(SARA);
    await makeTask(db, sara, { title: `Low ${queue}`, queue, priority: 0 });
    await makeTask(db, sara, { title: `Raised ${queue}`, queue, priority: 2 });
    await makeTask(db, sara, { title: `Urgent ${queue}`, queue, priority: 7 });
    await signIn(page, AMAL, `/?queue=${queue}`);

    await page.getByLabel("Priority").selectOption("raised");
    await page.getByLabel("Sort").selectOption("created");
    await page.getByRole("button", { name: "List" }).click();
    await expect(page).toHaveURL(/priority=raised/);
    await expect(page).toHaveURL(/sort=created/);
    await expect(page).toHaveURL(/view=list/);
    const rows = page.getByTestId("group-queued").locator("[data-board-item]");
    await expect(rows).toHaveText([new RegExp(`Urgent ${queue}`), new RegExp(`Raised ${queue}`)]); // newest first, ≥ 1 only
    await expect(rows.first()).toContainText("↑ 7");

    await page.reload();
    await expect(page.getByLabel("Priority")).toHaveValue("raised");
    await expect(page.getByLabel("Sort")).toHaveValue("created");
    await expect(page.getByRole("button", { name: "List" })).toHaveAttribute("aria-pressed", "true");
    await expect(rows).toHaveCount(2);

    // The view without it in the URL: the one this person chose last.
    await page.goto(`/?queue=${queue}`);
    await expect(page.getByTestId("task-list")).toBeVisible();
    await page.getByRole("button", { name: "Columns" }).click();
    await expect(page.getByTestId("board")).toBeVisible();
    await page.goto(`/?queue=${queue}`);
    await expect(page.getByTestId("board")).toBeVisible();
  });

  test("j/k move between cards, c claims, s starts, Enter opens, ? lists the keys", async ({ page, db, queue, actorOf }) => {
    const sara = await actorOf(SARA);
    await makeTask(db, sara, { title: `First ${queue}`, queue, priority: 9 });
    await makeTask(db, sara, { title: `Second ${queue}`, queue, priority: 1 });
    await signIn(page, AMAL, `/?queue=${queue}`);
    const first = page.getByRole("article", { name: `First ${queue}` });
    const second = page.getByRole("article", { name: `Second ${queue}` });
    await expect(second).toBeVisible();

    await page.keyboard.press("j");
    await expect(first).toBeFocused();
    await page.keyboard.press("j");
    await expect(second).toBeFocused();
    await page.keyboard.press("k");
    await expect(first).toBeFocused();

    await page.keyboard.press("c");
    const claimed = page.getByRole("region", { name: "Claimed" }).getByRole("article", { name: `First ${queue}` });
    await expect(claimed.getByTestId("owner")).toContainText("Amal");
    await expect(claimed).toBeFocused(); // focus follows the task to its new column
    await expect(claimed.getByRole("button", { name: "Start" })).toBeEnabled();
    await page.keyboard.press("s");
    const started = page.getByRole("region", { name: "Started" }).getByRole("article", { name: `First ${queue}` });
    await expect(started).toBeVisible();

    // A form that opens takes the focus.
    await page.getByRole("button", { name: "New task" }).click();
    await expect(page.getByRole("form", { name: "New task" }).getByLabel("Title")).toBeFocused();
    await page.getByRole("button", { name: "Close" }).click();

    await page.keyboard.press("?");
    const keys = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await expect(keys).toBeVisible();
    expect(await keys.evaluate((dialog) => dialog.contains(document.activeElement))).toBe(true);
    await expect(keys.getByTestId("keys")).toContainText("Claim the task");
    await page.keyboard.press("j"); // no board key while a dialog is open
    await page.keyboard.press("Escape");
    await expect(keys).toBeHidden();

    // Keys typed into a field are text, not commands.
    await page.keyboard.press("/");
    await page.keyboard.type("jk");
    await expect(page.getByLabel(/^Search/)).toHaveValue("jk");
    await page.getByLabel(/^Search/).fill("");
    await page.keyboard.press("Escape");

    await started.focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/tasks\/\d+$/);
    await expect(page.getByRole("heading", { name: `First ${queue}` })).toBeVisible();
  });

  test("cards are compact; Done shows the recent few with 'more'", async ({ page, db, queue, actorOf }) => {
    const amal = await actorOf(AMAL);
    for (let i = 0; i < 7; i++) {
      const task = await startAs(db, amal, await claimAs(db, amal, await makeTask(db, amal, { title: `Done ${i} ${queue}`, queue })));
      must(await perform(complete, { taskId: task.id, version: task.version }, { db, actor: amal }));
    }
    await makeTask(db, amal, { title: `Queued card ${queue}`, queue });
    await signIn(page, AMAL, `/?queue=${queue}`);
    const done = page.getByRole("region", { name: "Done" });
    await expect(done.getByRole("article")).toHaveCount(5);
    await expect(page.getByTestId("count-done")).toHaveText(/^7/);
    await done.getByRole("button", { name: "More done tasks" }).click();
    await expect(done.getByRole("article")).toHaveCount(7);
    const box = await page.getByRole("article", { name: `Queued card ${queue}` }).boundingBox();
    expect(box!.height).toBeLessThanOrEqual(72); // was ~130 px
  });

  test("on a phone your own tasks come first", async ({ page, db, queue, actorOf }) => {
    const [sara, amal] = [await actorOf(SARA), await actorOf(AMAL)];
    for (let i = 0; i < 4; i++) await makeTask(db, sara, { title: `Someone's ${i} ${queue}`, queue });
    await claimAs(db, amal, await makeTask(db, sara, { title: `Mine ${queue}`, queue }));
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, AMAL, `/?queue=${queue}`);
    const mine = page.getByTestId("my-tasks").getByRole("article", { name: `Mine ${queue}` });
    await expect(mine).toBeVisible();
    const queued = await page.getByRole("region", { name: "Queued" }).boundingBox();
    expect((await mine.boundingBox())!.y).toBeLessThan(queued!.y);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    await page.setViewportSize({ width: 1440, height: 900 });
    await expect(page.getByTestId("my-tasks")).toBeHidden(); // side by side, the columns say it already
  });
});
