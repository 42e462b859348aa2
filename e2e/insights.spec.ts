import { sql } from "drizzle-orm";
import { AMAL, SARA } from "./people";
import { expect, readmeScreenshot, signIn, test } from "./fixtures";
import { seedHistory } from "../lib/demo-history";
import { claimNext, complete, createActor, createTask, perform } from "../lib/tasks";
import { must } from "./seed";

test.describe("insights", () => {
  test("a supervisor sees the queue's charts, applies the recommended lease, and the change is recorded", async ({ page, db, queue, actorOf }) => {
    await seedHistory(db, { amal: await actorOf(AMAL), sara: await actorOf(SARA) }, queue, `etl-bot-${queue.slice(-4)}`);
    await signIn(page, SARA, `/insights?queue=${queue}&window=6h`);
    await expect(page.getByRole("heading", { name: `Queue ${queue}`, level: 2 })).toBeVisible();

    // Charts, not tables: four distributions for each of people and agents (both claim here), three series, a bar per claimant.
    await expect(page.getByTestId("histogram")).toHaveCount(8);
    await expect(page.getByRole("region", { name: "Step times of people" }).getByTestId("histogram")).toHaveCount(4);
    await expect(page.getByRole("region", { name: "Step times of agents" }).getByTestId("histogram")).toHaveCount(4);
    await expect(page.getByTestId("advice-people")).toBeVisible();
    await expect(page.getByTestId("advice-agents")).toBeVisible();
    await expect(page.getByTestId("series")).toHaveCount(4); // failures and escalations each their own (issue 27)
    await expect(page.getByRole("img", { name: /^Failures: / })).toBeVisible();
    await expect(page.getByRole("img", { name: /^Escalations: / })).toBeVisible();
    await expect(page.getByTestId("histogram").first().locator(`svg rect:not([height="0"])`).first()).toBeVisible();
    await expect(page.getByTestId("claimant").filter({ hasText: `etl-bot-${queue.slice(-4)}-1` })).toBeVisible();
    await expect(page.getByTestId("claimant").filter({ hasText: "Amal" })).toBeVisible();

    // Leases lapsed under the 30 s lease: too short, and a recommendation beside it.
    const lease = page.getByRole("region", { name: "Lease length" });
    await expect(lease.getByText("lease: too short").first()).toBeVisible(); // the badge says what it judges
    await expect(page.getByTestId("current-lease")).toHaveText("30 s");
    const recommended = Number((await page.getByTestId("recommended-lease").textContent())!.replace(" s", ""));
    expect(recommended).toBeGreaterThanOrEqual(60);
    await expect(page.getByTestId("recommendation-why")).toContainText("ended with the lease lapsing");
    await readmeScreenshot(page, "insights", test.info());

    await page.getByRole("button", { name: `Apply ${recommended} s` }).click();
    await expect(page.getByText(`The lease of ${queue} is now ${recommended} s.`)).toBeVisible();
    await expect(page.getByTestId("current-lease")).toHaveText(`${recommended} s`);
    await expect(lease.getByText(`Sara changed the lease 30 → ${recommended}`)).toBeVisible();
    await expect(page.getByText(`lease 30→${recommended} s by Sara`)).toBeVisible(); // the marker on the expiry chart

    const [row] = await db.execute<{ lease_seconds: number }>(sql`SELECT lease_seconds FROM queues WHERE name = ${queue}`);
    expect(row!.lease_seconds).toBe(recommended);
    const [event] = await db.execute<{ actor: string; payload: { reason: string; changes: { leaseSeconds: { from: number; to: number } } } }>(sql`
      SELECT a.name AS actor, e.payload FROM task_events e JOIN actors a ON a.id = e.actor_id
      WHERE e.queue = ${queue} AND e.type = 'settings_changed' ORDER BY e.id DESC LIMIT 1`);
    expect(event).toMatchObject({ actor: "Sara", payload: { reason: "recommended", changes: { leaseSeconds: { from: 30, to: recommended } } } });

    // Live, without polling: work done now shows up (the page re-renders at most every 10 s).
    const throughput = page.getByTestId("series").filter({ hasText: "Throughput" });
    const completed = async () => Number(/completed \((\d+)\)/.exec((await throughput.textContent()) ?? "")![1]);
    const before = await completed();
    const bot = await createActor(db, "agent", `live-bot-${queue.slice(-4)}`);
    await perform(createTask, { title: "one more", queue }, { db, actor: bot });
    const task = must(await perform(claimNext, { queue, start: true }, { db, actor: bot }))!;
    must(await perform(complete, { taskId: task.id, version: task.version }, { db, actor: bot }));
    await expect.poll(completed, { timeout: 30_000 }).toBe(before + 1);

    // A phone: everything fits the width.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.getByTestId("series").first()).toBeVisible();
    const wide = await page.evaluate(() => [...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > 391).map((e) => `${e.tagName}.${e.className}`.slice(0, 120)).slice(0, 8));
    expect(await page.evaluate(() => document.documentElement.scrollWidth), wide.join("\n")).toBeLessThanOrEqual(390);
  });

  test("staff are kept out, and an unknown queue is said so", async ({ page, browser }) => {
    await signIn(page, AMAL, "/insights");
    await expect(page).toHaveURL(/\/\?denied=insights/);
    const context = await browser.newContext({ baseURL: process.env.E2E_BASE_URL });
    const sara = await context.newPage();
    await signIn(sara, SARA, "/insights?queue=no-such-queue");
    await expect(sara.getByRole("alert").filter({ hasText: "no queue" })).toContainText("There is no queue named “no-such-queue”");
    await context.close();
  });
});
