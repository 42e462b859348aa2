import type { Page } from "@playwright/test";
import { AMAL, BILAL, SARA } from "./people";
import { expect, live, signIn, test } from "./fixtures";
import { escalated, seedBoard } from "./seed";

// No action out of reach. A page can be as wide as the screen and still hide its buttons in
// a sideways-scrolling table or menu: this measures the bounding box of every control in the
// supervisor menu and in the pages' tables, which must lie inside the viewport as the page
// opens (no sideways scroll needed to find it).

interface Off { label: string; left: number; right: number }

/** Visible controls of the main menu and of every table in main whose box is not inside the viewport. */
async function offScreen(page: Page): Promise<Off[]> {
  return page.evaluate(() => {
    const width = window.innerWidth;
    const controls = document.querySelectorAll<HTMLElement>(
      'header nav a, header nav button, main table a, main table button, main table input, main table select, main table [role="switch"]',
    );
    const out: { label: string; left: number; right: number }[] = [];
    for (const el of controls) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue; // not rendered (hidden at this width)
      if (box.left < 0 || box.right > width + 0.5) {
        out.push({ label: (el.getAttribute("aria-label") ?? el.textContent ?? el.tagName).trim().slice(0, 60), left: Math.round(box.left), right: Math.round(box.right) });
      }
    }
    return out;
  });
}

const PAGES = (queue: string) => ["/inbox", "/queues", "/agents", "/people", "/schedules", "/webhooks", `/insights?queue=${queue}`, `/?queue=${queue}&view=list`];

test("at 390 px no supervisor menu item or table action is off-screen", async ({ page, db, queue, actorOf }) => {
  const people = { amal: await actorOf(AMAL), bilal: await actorOf(BILAL), sara: await actorOf(SARA) };
  await seedBoard(db, people, queue);
  await escalated(db, people.sara, { title: `Escalated ${queue}`, queue }, ["it broke"]);
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, SARA, "/inbox");
  for (const path of PAGES(queue)) {
    await page.goto(path);
    await expect(page.locator("main")).toBeVisible();
    await live(page);
    expect.soft(await offScreen(page), path).toEqual([]);
    await page.screenshot({ path: test.info().outputPath(`reach-390${path.replace(/[/?=&]+/g, "-")}.png`), fullPage: true });
  }
});

test("/queues at 1440 px shows every column, Lease and Settings included", async ({ page, db, queue, actorOf }) => {
  const people = { amal: await actorOf(AMAL), bilal: await actorOf(BILAL), sara: await actorOf(SARA) };
  await seedBoard(db, people, queue);
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, SARA, "/queues");
  await live(page);
  const table = page.getByRole("table", { name: "Queues" });
  // Inside the table's own region, which scrolls sideways when the table is wider than it.
  const region = (await page.getByRole("region", { name: "Queues table" }).boundingBox())!;
  const right = region.x + region.width;
  for (const header of ["Queued", "Lease"]) {
    const box = (await table.getByRole("columnheader", { name: header }).boundingBox())!;
    expect(box.x + box.width, header).toBeLessThanOrEqual(right);
  }
  const box = (await table.getByRole("button", { name: `Open the settings of ${queue}` }).boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(right);
  expect(await offScreen(page)).toEqual([]);
  await page.screenshot({ path: test.info().outputPath("queues-1440.png"), fullPage: true });
});
