import { AMAL, BILAL, SARA } from "./people";
import { expect, readmeScreenshot, signIn, test } from "./fixtures";
import { seedBoard } from "./seed";

test.describe("layout", () => {
  test("the header shows who is signed in; supervisors get their pages, staff do not", async ({ page, browser }) => {
    await signIn(page, AMAL);
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(page.getByTestId("signed-in-as")).toHaveText(/Amal\s*· staff/);
    await expect(nav.getByRole("link", { name: "Board" })).toHaveAttribute("aria-current", "page");
    await expect(nav.getByRole("link", { name: "Inbox" })).toHaveCount(0);
    await expect(nav.getByRole("link", { name: "Questions" })).toBeVisible(); // questions agents ask people: everyone's

    const sara = await browser.newPage({ baseURL: process.env.E2E_BASE_URL });
    await signIn(sara, SARA);
    const saraNav = sara.getByRole("navigation", { name: "Main" });
    await expect(sara.getByTestId("signed-in-as")).toHaveText(/Sara\s*· supervisor/);
    for (const name of ["Board", "Inbox", "Agents", "Queues"]) await expect(saraNav.getByRole("link", { name })).toBeVisible();
    await sara.close();
  });

  test("the board works at phone width and at desktop width (screenshots)", async ({ page, db, queue, actorOf }) => {
    await seedBoard(db, { amal: await actorOf(AMAL), bilal: await actorOf(BILAL), sara: await actorOf(SARA) }, queue);
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, AMAL, `/?queue=${queue}`);
    await expect(page.getByRole("article", { name: "Review inspection 7" })).toBeVisible();
    // Nothing sticks out sideways: the page scrolls down, never across.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.getByRole("button", { name: /Claim next/ }).focus();
    await readmeScreenshot(page, "board-phone", test.info());

    await page.setViewportSize({ width: 1440, height: 900 });
    await page.reload();
    await expect(page.getByRole("article", { name: "Review inspection 7" })).toBeVisible();
    await readmeScreenshot(page, "board", test.info());
  });
});
