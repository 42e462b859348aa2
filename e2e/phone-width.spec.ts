import { AMAL, BILAL, SARA } from "./people";
import { expect, live, signIn, test } from "./fixtures";
import { escalated, makeTask, seedBoard } from "./seed";

// Issue 27 item 5: no page is wider than the screen at 390 px — it scrolls down, never
// across. A long URL in a title is the classic way out (it has no place to break).

const PHONE = { width: 390, height: 844 };
const widthOf = (page: import("@playwright/test").Page) => page.evaluate(() => document.documentElement.scrollWidth);

test("at 390 px no page is wider than the screen: both board views, a task with a long URL title, inbox, queues, agents, people, insights", async ({ page, db, queue, actorOf }) => {
  const people = { amal: await actorOf(AMAL), bilal: await actorOf(BILAL), sara: await actorOf(SARA) };
  await seedBoard(db, people, queue);
  const url = `https://example.com/tickets/${"segment-".repeat(8)}end?and=${"x".repeat(30)}`;
  const long = await makeTask(db, people.sara, { title: `Read ${url} ${queue}`, queue, description: `See ${url}` });
  await escalated(db, people.sara, { title: `Escalated with ${url}`, queue }, ["a reason that is rather long and has a URL in it: " + url]);
  await page.setViewportSize(PHONE);
  await signIn(page, SARA, `/?queue=${queue}`);
  for (const path of [`/?queue=${queue}`, `/?queue=${queue}&view=list`, `/tasks/${long.id}`, "/inbox", "/queues", "/agents", "/people", `/insights?queue=${queue}`]) {
    await page.goto(path);
    await expect(page.locator("main")).toBeVisible();
    await live(page); // hydrated: the client's own rendering is in too
    expect.soft(await widthOf(page), path).toBeLessThanOrEqual(PHONE.width);
  }
});
