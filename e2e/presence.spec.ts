import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Page } from "@playwright/test";
import { createUser } from "../lib/auth/users";
import { perform, setQueueSettings } from "../lib/tasks";
import { loadTask } from "../lib/tasks/core/task-row";
import { BILAL, SARA, type Person } from "./people";
import { expect, live, pageAs, test, type Fixtures } from "./fixtures";
import { claimAs, makeTask, must } from "./seed";

// A person's lease follows their presence (issue 12). Each test signs in a person of its
// own: the browser renews every lease its person holds, so a shared account's other tabs
// (other tests' pages) would renew this test's leases too.

async function newPerson(db: Fixtures["db"], name: string): Promise<Person> {
  const tag = randomBytes(3).toString("hex");
  const person = { email: `${name.toLowerCase()}-${tag}@example.com`, name: `${name} ${tag}`, role: "staff", password: `${name}-password-${tag}` };
  await createUser(db, { ...person, role: "staff" });
  return person as unknown as Person;
}

/** A task in a queue of 10 s leases, open on the person's task page and claimed there. */
async function claimOnPage(page: Page, db: Fixtures["db"], queue: string, sara: Parameters<typeof makeTask>[1], title: string) {
  must(await perform(setQueueSettings, { queue, leaseSeconds: 10 }, { db, actor: sara }));
  const task = await makeTask(db, sara, { title, queue });
  await page.goto(`/tasks/${task.id}`);
  await live(page);
  await page.getByRole("button", { name: "Claim" }).click();
  await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "claimed");
  // Shown at once (optimistic): wait for the server's answer too.
  await expect.poll(async () => (await loadTask(db, task.id))?.status).toBe("claimed");
  return task;
}

const sameDocument = (page: Page) => page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
const stillSameDocument = (page: Page) => page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument);

test.describe("a person's lease follows their presence", () => {
  test("on a 10 s lease, a person using the page keeps the task for 40 s", async ({ browser, db, queue, actorOf }) => {
    test.setTimeout(120_000);
    const person = await newPerson(db, "Dana");
    const page = await pageAs(browser, person);
    const task = await claimOnPage(page, db, queue, await actorOf(SARA), `Phone the tenant ${queue}`);
    const started = Date.now();
    for (let i = 0; Date.now() - started < 40_000; i++) {
      await page.mouse.move(100 + (i % 7) * 20, 200 + (i % 5) * 15); // in use: the pointer moves
      await page.waitForTimeout(2000);
    }
    const now = await loadTask(db, task.id);
    expect(now).toMatchObject({ status: "claimed", owner: { name: person.name } });
    const [row] = await db.execute<{ live: boolean; lapses: number; renewals: number }>(sql`
      SELECT lease_until > now() AS live,
             (SELECT count(*)::int FROM task_events WHERE task_id = ${task.id}::bigint AND type = 'lease_expired') AS lapses,
             (SELECT count(*)::int FROM task_events WHERE task_id = ${task.id}::bigint AND type = 'heartbeat' AND payload ? 'presence') AS renewals
      FROM tasks WHERE id = ${task.id}::bigint`);
    expect(row).toMatchObject({ live: true, lapses: 0 });
    // About one renewal a third of the lease (40 s / 3.3 s ≈ 12), never one a tick.
    expect(row!.renewals).toBeGreaterThanOrEqual(8);
    expect(row!.renewals).toBeLessThanOrEqual(16);
    await expect(page.getByRole("region", { name: "History" })).toContainText("renewed the lease while on the page");
    await page.context().close();
  });

  test("idle, the person is warned before the lapse; after a colleague's claim, a notice names the colleague — no reload", async ({ browser, db, queue, actorOf }) => {
    const person = await newPerson(db, "Eli");
    const context = await browser.newContext({ baseURL: process.env.E2E_BASE_URL });
    // Idle after 4 s here instead of minutes, so the test need not wait that long.
    await context.addInitScript(() => window.localStorage.setItem("claimboard:idle-after-ms", "4000"));
    const page = await context.newPage();
    const { signIn } = await import("./fixtures");
    await signIn(page, person);
    const title = `Email the landlord ${queue}`;
    const task = await claimOnPage(page, db, queue, await actorOf(SARA), title);
    await sameDocument(page);

    const warning = page.getByRole("alert").filter({ hasText: "Still on it?" });
    await expect(warning).toBeVisible({ timeout: 15_000 });
    await expect(warning).toContainText(title);
    await expect(warning.getByTestId("still-on-it-countdown")).toHaveText(/^0:\d\d$/);
    await expect(warning.getByRole("button", { name: "I'm still on it — renew" })).toBeVisible();
    // Nobody clicks: the lease lapses, and the page says so.
    await expect(page.getByTestId("lease-lapsed")).toContainText(title, { timeout: 20_000 });

    const bilal = await pageAs(browser, BILAL, `/tasks/${task.id}`);
    await bilal.getByRole("button", { name: "Claim" }).click();
    await expect(bilal.getByTestId("task-status")).toHaveAttribute("data-status", "claimed");

    const notice = page.getByTestId("takeover-notice");
    await expect(notice).toContainText(`Bilal took over ${title} at`);
    await expect(notice).toHaveAttribute("role", "alert");
    // The task page shows the takeover in the history, and the old owner's attempt stays.
    const history = page.getByRole("region", { name: "History" });
    await expect(history).toContainText("took it over (the previous lease had lapsed)");
    await expect(history.getByRole("region", { name: "Attempt 1" })).toContainText(person.name);
    expect(await stillSameDocument(page)).toBe(true);
    await bilal.context().close();
    await context.close();
  });

  test("a page frozen (asleep) and woken after a takeover shows the notice", async ({ browser, db, queue, actorOf }) => {
    const person = await newPerson(db, "Fay");
    const page = await pageAs(browser, person);
    const title = `Order the keys ${queue}`;
    const task = await claimOnPage(page, db, queue, await actorOf(SARA), title);
    await sameDocument(page);
    await expect(page.getByTestId("lease-keeper")).toHaveAttribute("data-held", "1"); // the page knows it holds the task
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Page.setWebLifecycleState", { state: "frozen" });

    // While it sleeps: the lease lapses and Bilal takes the task.
    await db.execute(sql`UPDATE tasks SET lease_until = now() - interval '1 second' WHERE id = ${task.id}::bigint AND status = 'claimed'`);
    const held = (await loadTask(db, task.id))!;
    await claimAs(db, await actorOf(BILAL), held);

    await cdp.send("Page.setWebLifecycleState", { state: "active" });
    await expect(page.getByTestId("takeover-notice")).toContainText(`Bilal took over ${title} at`);
    expect(await stillSameDocument(page)).toBe(true);
    await page.context().close();
  });
});
