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
  // (Measured to the form, not to the first column: another spec's lapsed or paused banner
  // may stand between them, as it should.)
  const header = (await page.locator("header").first().boundingBox())!;
  const formBox = (await form.boundingBox())!;
  expect(formBox.y + formBox.height - (header.y + header.height)).toBeLessThanOrEqual(60);

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

test("at 1440 px every chip shows its whole name, and a chosen queue its whole name and count", async ({ page, queue }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, AMAL, "/");
  // What a chip's box leaves beside its text: the native arrow needs ~20 px of it, and with
  // less Chromium cut the names ("St…", "O…", "Pri…": found by exploratory testing, 6 Dec 2026).
  const room = () => page.getByRole("search", { name: "Filter tasks" }).locator("select").evaluateAll((chips) => chips.map((chip) => {
    const select = chip as HTMLSelectElement;
    const style = getComputedStyle(select);
    const pen = document.createElement("canvas").getContext("2d")!;
    pen.font = style.font;
    const text = select.options[select.selectedIndex]!.text;
    return { text, spare: Math.round(select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - pen.measureText(text).width) };
  }));
  for (const chip of await room()) expect(chip.spare, chip.text).toBeGreaterThanOrEqual(18);
  await page.getByRole("combobox", { name: "Queue", exact: true }).selectOption(queue);
  await expect(page).toHaveURL(new RegExp(`queue=${queue}`));
  const chosen = (await room()).find((chip) => chip.text.startsWith(queue))!;
  expect(chosen.spare, chosen.text).toBeGreaterThanOrEqual(18);
});

// Issue 27 item 5: on a phone the filters are a sheet behind one button, the board comes
// first, and the list's rows are two lines with their action in reach.
test("at 390 px the filters open in a sheet and list rows are two lines with Claim inline", async ({ page, db, queue, actorOf }) => {
  const sara = await actorOf(SARA);
  await makeTask(db, sara, { title: `Fix the boiler in the basement before the weekend ${queue}`, queue, priority: 3 });
  await makeTask(db, sara, { title: `Second ${queue}`, queue });
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, AMAL, `/?queue=${queue}`);
  await live(page);

  await expect(page.getByLabel("Status", { exact: true })).toBeHidden();
  // The board, not a form, fills the first screen: the box and Filters on one line, the pills on the next.
  expect((await page.getByRole("search", { name: "Filter tasks" }).boundingBox())!.height).toBeLessThanOrEqual(72);
  await page.getByRole("button", { name: "Filters (1)" }).click(); // queue:… is one
  const sheet = page.getByRole("dialog", { name: "Filters" });
  await expect(sheet).toBeVisible();
  await sheet.getByLabel("Status", { exact: true }).selectOption("queued");
  await expect(page).toHaveURL(/status=queued/);
  await sheet.getByRole("button", { name: "Done" }).click();
  await expect(sheet).toBeHidden();
  await expect(page.getByRole("list", { name: "Active filters" }).getByRole("button", { name: "Remove filter status:queued" })).toBeVisible();
  await page.getByRole("button", { name: "Filters (2)" }).click();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog", { name: "Filters" })).toBeHidden();

  await page.goto(`/?queue=${queue}&view=list`);
  await live(page);
  const rows = page.getByTestId("group-queued").locator("[data-board-item]");
  await expect(rows).toHaveCount(2);
  for (const row of await rows.all()) {
    const box = (await row.boundingBox())!;
    expect(box.height).toBeLessThanOrEqual(72); // two lines: the title, then id · priority · queue · owner and the action
    const claim = (await row.getByRole("button", { name: "Claim" }).boundingBox())!;
    expect(claim.x + claim.width).toBeLessThanOrEqual(390);
    expect(claim.y).toBeGreaterThan(box.y + 12); // on the second line, beside the details
  }
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});
