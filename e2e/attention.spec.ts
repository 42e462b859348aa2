import type { Page } from "@playwright/test";
import { attention } from "../lib/attention/attention";
import { createAgentToken } from "../lib/auth/tokens";
import { perform } from "../lib/tasks";
import { AMAL, SARA } from "./people";
import { expect, live, pageAs, signIn, test } from "./fixtures";

// Issue 50 items 1–2 (docs/attention.md): the nav counts what waits for a person on every page,
// live, and notifications come from every page. Amal (staff) has never claimed in the queue the
// agent asks in; on /questions — not the board — she is told within 2 s, in a notification and
// in the nav's Questions count. window.Notification is recorded in localStorage (as in
// notifications.spec.ts: headless Chromium has no notification centre).

const RECORD = () => {
  const KEY = "__e2e_notifications";
  class Recorded {
    static get permission() { return "granted" as NotificationPermission; }
    static requestPermission() { return Promise.resolve("granted" as NotificationPermission); }
    onclick: (() => void) | null = null;
    constructor(title: string, options?: NotificationOptions) {
      const all = JSON.parse(localStorage.getItem(KEY) ?? "[]") as unknown[];
      all.push({ title, body: options?.body ?? "" });
      localStorage.setItem(KEY, JSON.stringify(all));
    }
    close() {}
  }
  Object.defineProperty(window, "Notification", { value: Recorded, configurable: true, writable: true });
};
const shown = (page: Page) => page.evaluate(() => JSON.parse(localStorage.getItem("__e2e_notifications") ?? "[]") as { title: string; body: string }[]);
const badge = (page: Page, testId: string) => page.getByRole("navigation", { name: "Main" }).getByTestId(testId);
const badgeCount = async (page: Page, testId: string) => {
  const b = badge(page, testId);
  return (await b.count()) === 0 ? 0 : Number((await b.locator("[aria-hidden]").innerText()).replace(/\D/g, ""));
};

test.describe("attention", () => {
  test("an agent's question reaches Amal on /questions within 2 s: a notification and the nav's count", async ({ page, db, queue, request, actorOf }) => {
    const amal = await actorOf(AMAL);
    const counted = async () => {
      const result = await perform(attention, {}, { db, actor: amal, standing: "staff" });
      if (!result.ok) throw new Error(result.error.message);
      return result.value.counts.questions;
    };
    await page.context().grantPermissions(["notifications"]);
    await page.context().addInitScript(RECORD);
    await signIn(page, AMAL, "/account");
    await page.getByTestId("notify-toggle").check();
    await expect(page.getByTestId("notify-kind-question")).toBeChecked();
    await page.goto("/questions");
    await live(page);
    await expect.poll(async () => (await badgeCount(page, "questions-count")) === (await counted())).toBe(true);
    const before = await badgeCount(page, "questions-count");

    const { token } = await createAgentToken(db, { name: `asker-${queue}` });
    const auth = { Authorization: `Bearer ${token}` };
    const created = await (await request.post("/api/v1/tasks", { headers: auth, data: { title: `Pick a template ${queue}`, queue } })).json();
    const claimed = await (await request.post(`/api/v1/tasks/${created.task.id}/claim`, { headers: auth, data: { version: created.task.version } })).json();
    const started = await (await request.post(`/api/v1/tasks/${created.task.id}/start`, { headers: auth, data: { version: claimed.task.version } })).json();
    const asked = await request.post(`/api/v1/tasks/${created.task.id}/questions`, { headers: auth, data: { version: started.task.version, question: "Short or long?" } });
    expect(asked.status()).toBe(201);

    await expect.poll(async () => (await shown(page)).filter((n) => n.title === `A question in ${queue}`), { timeout: 2000 })
      .toEqual([{ title: `A question in ${queue}`, body: expect.stringContaining(`Pick a template ${queue}`) }]);
    await expect.poll(() => badgeCount(page, "questions-count"), { timeout: 2000 }).toBeGreaterThan(before);
    await expect.poll(async () => (await badgeCount(page, "questions-count")) === (await counted())).toBe(true);
    await expect(badge(page, "questions-count")).toContainText("to answer"); // in words for a screen reader
  });

  test("where the browser refuses permission, an opted-in person is told in the page, and the opt-in says so", async ({ browser, db, queue, request }) => {
    const context = await browser.newContext({ baseURL: process.env.E2E_BASE_URL });
    await context.addInitScript(() => {
      class Refused {
        static get permission() { return "denied" as NotificationPermission; }
        static requestPermission() { return Promise.resolve("denied" as NotificationPermission); }
        constructor() { throw new Error("refused"); }
      }
      Object.defineProperty(window, "Notification", { value: Refused, configurable: true, writable: true });
    });
    const page = await context.newPage();
    await signIn(page, AMAL, "/account");
    await page.getByTestId("notify-toggle").check();
    await expect(page.getByTestId("notify-in-page")).toContainText("they show in the page instead");
    await page.goto("/questions");
    await live(page);
    const { token } = await createAgentToken(db, { name: `asker2-${queue}` });
    const auth = { Authorization: `Bearer ${token}` };
    const created = await (await request.post("/api/v1/tasks", { headers: auth, data: { title: `Refused ${queue}`, queue } })).json();
    const claimed = await (await request.post(`/api/v1/tasks/${created.task.id}/claim`, { headers: auth, data: { version: created.task.version } })).json();
    const started = await (await request.post(`/api/v1/tasks/${created.task.id}/start`, { headers: auth, data: { version: claimed.task.version } })).json();
    await request.post(`/api/v1/tasks/${created.task.id}/questions`, { headers: auth, data: { version: started.task.version, question: "Yes?" } });
    await expect(page.getByTestId("in-page-notice").filter({ hasText: `Refused ${queue}` })).toBeVisible();
    await context.close();
  });

  test("the nav with its counts at 1440 and 390 px", async ({ browser, db, queue, request }, testInfo) => {
    // Something to count: a question waits for Sara (a supervisor answers in every queue).
    const { token } = await createAgentToken(db, { name: `asker3-${queue}` });
    const auth = { Authorization: `Bearer ${token}` };
    const created = await (await request.post("/api/v1/tasks", { headers: auth, data: { title: `Counted ${queue}`, queue } })).json();
    const claimed = await (await request.post(`/api/v1/tasks/${created.task.id}/claim`, { headers: auth, data: { version: created.task.version } })).json();
    const started = await (await request.post(`/api/v1/tasks/${created.task.id}/start`, { headers: auth, data: { version: claimed.task.version } })).json();
    await request.post(`/api/v1/tasks/${created.task.id}/questions`, { headers: auth, data: { version: started.task.version, question: "Counted?" } });
    for (const [width, height] of [[1440, 900], [390, 844]] as const) {
      const page = await pageAs(browser, SARA, "/questions");
      await page.setViewportSize({ width, height });
      await live(page);
      const nav = page.getByRole("navigation", { name: "Main" });
      await expect(nav.getByRole("link", { name: /Questions/ })).toBeVisible();
      await expect(badge(page, "questions-count")).toBeVisible();
      await page.screenshot({ path: testInfo.outputPath(`nav-${width}.png`), clip: { x: 0, y: 0, width, height: Math.min(height, 220) } });
      await page.context().close();
    }
  });
});
