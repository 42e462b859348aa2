import { eq, sql } from "drizzle-orm";
import type { Page } from "@playwright/test";
import { queues } from "../db/schema";
import { askQuestion, claim, complete, createActor, perform, start } from "../lib/tasks";
import { AMAL, SARA } from "./people";
import { expect, live, signIn, test } from "./fixtures";
import { makeTask, must } from "./seed";

// Issue 23 item 4: a person opts in to browser notifications on the board; with the board open
// in two tabs, each fact (a review waiting for them, their task taken over, a question in a
// queue they work) is shown exactly once, and reloading does not show it again. window.Notification is wrapped by an init script
// that records every notification made in localStorage (shared by the context's tabs).

const RECORD = () => {
  const KEY = "__e2e_notifications";
  const Real = window.Notification;
  class Recorded {
    static get permission() { return "granted" as NotificationPermission; }
    static requestPermission() { return Promise.resolve("granted" as NotificationPermission); }
    onclick: (() => void) | null = null;
    constructor(title: string, options?: NotificationOptions) {
      const all = JSON.parse(localStorage.getItem(KEY) ?? "[]") as unknown[];
      all.push({ title, body: options?.body ?? "", tag: options?.tag ?? "" });
      localStorage.setItem(KEY, JSON.stringify(all));
      void Real; // the real one is not shown: headless Chromium has no notification centre
    }
    close() {}
  }
  Object.defineProperty(window, "Notification", { value: Recorded, configurable: true, writable: true });
};

// Only this test's notifications: a question in another test's queue reaches the same people
// (every person it may be asked of: docs/attention.md), and tests run in parallel.
let ownQueue = "";
const shown = async (page: Page) => (await page.evaluate(() => JSON.parse(localStorage.getItem("__e2e_notifications") ?? "[]") as { title: string; body: string; tag: string }[]))
  .filter((n) => n.title.includes(ownQueue) || n.body.includes(ownQueue));

test.describe("browser notifications", () => {
  test("an opted-in person gets exactly one notification per fact across two tabs, and a reload does not repeat it", async ({ page, db, queue, actorOf }) => {
    ownQueue = queue;
    // No person's grace (docs/attention.md): the agent takes Amal's lapsed task at once, so she hears of it.
    await db.update(queues).set({ review: "agents", personGraceSeconds: 0 }).where(eq(queues.name, queue));
    const context = page.context();
    await context.grantPermissions(["notifications"]);
    await context.addInitScript(RECORD);
    const agent = await createActor(db, "agent", `bot-${Math.random().toString(36).slice(2, 6)}`);
    const amal = await actorOf(AMAL);

    await signIn(page, AMAL, `/?queue=${queue}`);
    await page.getByTestId("notify-toggle").check();
    await expect(page.getByTestId("notify-toggle")).toBeChecked();
    const second = await context.newPage();
    await second.goto(`/?queue=${queue}`);
    await live(second);
    await expect(second.getByTestId("notify-toggle")).toBeChecked(); // the choice is the browser's

    // A review waiting for Amal: an agent's completion in a queue that reviews agents.
    let task = await makeTask(db, await actorOf(SARA), { title: `Summarise the incident ${queue}`, queue });
    task = must(await perform(claim, { taskId: task.id, version: task.version }, { db, actor: agent }));
    task = must(await perform(start, { taskId: task.id, version: task.version }, { db, actor: agent }));
    must(await perform(complete, { taskId: task.id, version: task.version, result: { summary: "disk full" } }, { db, actor: agent }));
    await expect.poll(() => shown(page)).toHaveLength(1);
    expect((await shown(page))[0]).toMatchObject({ title: "A review waits for you", body: expect.stringContaining("Summarise the incident") });

    // Amal's task taken over: her lease lapsed and the agent claimed it.
    let mine = await makeTask(db, amal, { title: `Rotate the keys ${queue}`, queue });
    mine = must(await perform(claim, { taskId: mine.id, version: mine.version }, { db, actor: amal }));
    await db.execute(sql`UPDATE tasks SET lease_until = now() - interval '5 seconds' WHERE id = ${mine.id}::bigint`);
    must(await perform(claim, { taskId: mine.id, version: mine.version }, { db, actor: agent }));
    await expect.poll(() => shown(page)).toHaveLength(2);
    expect((await shown(second))[1]).toMatchObject({ title: "Your task was taken over", body: expect.stringContaining("Rotate the keys") });

    // A question in a queue Amal works (she claimed a task of it above): the agent asks a person.
    let asking = await makeTask(db, await actorOf(SARA), { title: `Pick the refund ${queue}`, queue });
    asking = must(await perform(claim, { taskId: asking.id, version: asking.version }, { db, actor: agent }));
    asking = must(await perform(start, { taskId: asking.id, version: asking.version }, { db, actor: agent }));
    must(await perform(askQuestion, { taskId: asking.id, version: asking.version, question: "Full or partial?", choices: ["Full", "Partial"] }, { db, actor: agent }));
    await expect.poll(() => shown(page)).toHaveLength(3);
    expect((await shown(second))[2]).toMatchObject({ title: `A question in ${queue}`, body: expect.stringContaining("Pick the refund") });

    // Both tabs heard every event; still one notification each. A reload shows nothing again.
    await page.waitForTimeout(1500);
    expect(await shown(second)).toHaveLength(3);
    await page.reload();
    await live(page);
    await second.reload();
    await live(second);
    await page.waitForTimeout(1500);
    expect(await shown(page)).toHaveLength(3);
    expect(new Set((await shown(page)).map((n) => n.tag)).size).toBe(3);
  });
});
