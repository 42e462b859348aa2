import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { AMAL, BILAL, SARA, type Person } from "./people";
import { expect, pageAs, test } from "./fixtures";
import { escalated, seedBoard, makeTask } from "./seed";

// axe-core over every page, as staff and as a supervisor, at desktop and phone width: no
// serious or critical violation (WCAG 2.x A and AA rules). Each page is scanned once it has
// hydrated and its live data has arrived, so what is checked is what a person sees.

const WIDTHS = [
  { name: "1440 px", width: 1440, height: 900 },
  { name: "390 px", width: 390, height: 844 },
] as const;

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

interface Finding {
  page: string;
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

/** The serious and critical violations on the page as it is now, in words a report can carry. */
async function scan(page: Page, label: string): Promise<Finding[]> {
  const results = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ page: label, rule: v.id, impact: v.impact!, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
}

/** Opens a page and waits until it has settled (hydrated, nothing loading). */
async function visit(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await page.waitForLoadState("networkidle").catch(() => {}); // the event stream keeps one request open
  await expect(page.getByText("Loading…")).toHaveCount(0);
}

/** The pages each role may open (a staff member sent to a supervisor page is brought back). */
function pagesFor(person: Person, taskId: string, queue: string): string[] {
  const common = [`/?queue=${queue}`, `/?queue=${queue}&view=list`, "/", `/tasks/${taskId}`, "/api-reference", "/questions", "/account"];
  return person.role === "supervisor" ? [...common, "/inbox", "/queues", "/agents", "/people", "/insights", "/schedules", "/webhooks"] : common;
}

test.describe("accessibility (axe-core)", () => {
  for (const width of WIDTHS) {
    test(`the sign-in page at ${width.name}`, async ({ page }) => {
      await page.setViewportSize(width);
      await visit(page, "/login");
      expect(await scan(page, "/login")).toEqual([]);
    });

    for (const person of [AMAL, SARA]) {
      test(`every page ${person.role === "supervisor" ? "a supervisor" : "staff"} may open at ${width.name}`, async ({ browser, db, queue, actorOf }) => {
        // A budget a page (a supervisor has 13): one test walks them all, and on a loaded
        // machine 13 pages' loads and scans outran a flat three minutes (CI, 6 Dec 2026).
        test.setTimeout(60_000 + 20_000 * pagesFor(person, "0", queue).length);
        const people = { amal: await actorOf(AMAL), bilal: await actorOf(BILAL), sara: await actorOf(SARA) };
        await seedBoard(db, people, queue);
        await escalated(db, people.sara, { title: `Escalated for axe ${queue}`, queue }, ["CSV had no header"]);
        // Blocked by a task of its own, so the board's "blocked by #…" and the task page's
        // dependency list (links inside a sentence) are on every run's pages, not by chance.
        const prerequisite = await makeTask(db, people.sara, { title: `Axe prerequisite ${queue}`, queue });
        const task = await makeTask(db, people.sara, { title: `Axe task ${queue}`, queue, description: "Look at **this**.", dependsOn: [prerequisite.id] });
        const page = await pageAs(browser, person);
        await page.setViewportSize(width);
        const findings: Finding[] = [];
        for (const path of pagesFor(person, task.id, queue)) {
          await visit(page, path);
          findings.push(...(await scan(page, path)));
        }
        // All pages at once, so one run lists everything to fix.
        expect(findings).toEqual([]);
        await page.context().close();
      });
    }
  }

  test("the first Tab reaches 'Skip to content', which jumps past the header", async ({ browser }) => {
    const page = await pageAs(browser, AMAL);
    await page.reload(); // a fresh load: focus starts at the top of the document
    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to content" });
    await expect(skip).toBeFocused();
    await expect(skip).toBeInViewport();
    await page.keyboard.press("Enter");
    await expect(page.locator("#content")).toBeFocused();
    await page.context().close();
  });
});
