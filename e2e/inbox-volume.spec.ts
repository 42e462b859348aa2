import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { perform, setQueueSettings, type ActorRef } from "../lib/tasks";
import { SARA } from "./people";
import { expect, live, pageAs, signIn, test } from "./fixtures";
import { escalated, must } from "./seed";

// The escalation inbox at volume (docs/fleet.md): selection with shift-click, "all matching"
// a search, failures grouped by reason, Cancel confirmed, and the Inbox link's live badge.

async function statuses(db: Db, queue: string) {
  const rows = await db.execute<{ title: string; status: string }>(sql`SELECT title, status FROM tasks WHERE queue = ${queue} ORDER BY id`);
  return Object.fromEntries(rows.map((r) => [r.title, r.status]));
}

/** `titles` escalated in `queue` after one failure each (the queue allows one), with `reason`. */
async function escalate(db: Db, sara: ActorRef, queue: string, titles: string[], reason = "upstream said no") {
  must(await perform(setQueueSettings, { queue, maxFailures: 1 }, { db, actor: sara }));
  for (const title of titles) await escalated(db, sara, { title, queue }, [reason]);
}

test.describe("the inbox at volume", () => {
  test("select 3 of 5 with a shift-click and requeue them with a note", async ({ page, db, queue, actorOf }) => {
    const titles = [1, 2, 3, 4, 5].map((n) => `Import batch ${n} ${queue}`);
    await escalate(db, await actorOf(SARA), queue, titles);
    await signIn(page, SARA, `/inbox?queue=${queue}`);
    await page.getByLabel("Sort").selectOption("waiting"); // oldest escalation first: batch 1 … 5
    const rows = page.getByRole("list", { name: "Escalated tasks" }).getByRole("article");
    await expect(rows).toHaveCount(5);
    await expect(rows.first()).toContainText(/escalated (just now|\d+ min ago)/);

    await page.getByRole("checkbox", { name: `Select ${titles[0]}` }).click();
    await page.getByRole("checkbox", { name: `Select ${titles[2]}` }).click({ modifiers: ["Shift"] });
    await expect(page.getByTestId("selection-count")).toHaveText("3 selected");
    await page.getByRole("button", { name: "Requeue 3 selected" }).click();
    const dialog = page.getByRole("dialog", { name: "Requeue 3 tasks?" });
    await dialog.getByLabel("Note (optional)").fill("the importer is fixed");
    await dialog.getByRole("button", { name: "Requeue 3 tasks" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Requeued 3 tasks." })).toBeVisible();
    await expect(rows).toHaveCount(2);

    expect(await statuses(db, queue)).toEqual({
      [titles[0]!]: "queued", [titles[1]!]: "queued", [titles[2]!]: "queued", [titles[3]!]: "escalated", [titles[4]!]: "escalated",
    });
    const notes = await db.execute<{ reason: string }>(sql`SELECT payload->>'reason' AS reason FROM task_events WHERE queue = ${queue} AND type = 'requeued'`);
    expect(notes.map((n) => n.reason)).toEqual(Array(3).fill("the importer is fixed"));
  });

  test("a search, then everything it matches, cancelled after a confirmation", async ({ page, db, queue, actorOf }) => {
    const titles = [`Invoice Acme ${queue}`, `Invoice Globex ${queue}`, `Translate notice ${queue}`, `Invoice Initech ${queue}`];
    await escalate(db, await actorOf(SARA), queue, titles);
    await signIn(page, SARA, `/inbox?queue=${queue}`);
    await page.getByLabel("Search escalated tasks").fill("invoice");
    const rows = page.getByRole("list", { name: "Escalated tasks" }).getByRole("article");
    await expect(rows).toHaveCount(3);
    // The search is in the address: a reload (or a shared link) shows the same rows.
    await expect(page).toHaveURL(new RegExp(`/inbox\\?queue=${queue}&q=invoice$`));
    await page.reload();
    await expect(page.getByLabel("Search escalated tasks")).toHaveValue("invoice");
    await expect(rows).toHaveCount(3);
    await page.getByRole("button", { name: "Cancel all 3 matching" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel 3 tasks?" });
    await expect(dialog).toContainText("drop it for good");
    await expect(dialog).toContainText("3 tasks matching “invoice”");
    await dialog.getByRole("button", { name: "Cancel 3 tasks" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Cancelled 3 tasks." })).toBeVisible();
    await page.getByLabel("Search escalated tasks").fill("");
    await expect(rows).toHaveCount(1);
    expect(await statuses(db, queue)).toEqual({ [titles[0]!]: "cancelled", [titles[1]!]: "cancelled", [titles[2]!]: "escalated", [titles[3]!]: "cancelled" });
  });

  test("failures grouped by reason, resolved as a group; a single Cancel asks first", async ({ page, db, queue, actorOf }) => {
    const sara = await actorOf(SARA);
    const billing = [1, 2, 3].map((n) => `Charge customer ${n} ${queue}`);
    await escalate(db, sara, queue, billing, "401 from the billing API");
    const other = `Resize photos ${queue}`;
    await escalate(db, sara, queue, [other], "disk full");
    await signIn(page, SARA, `/inbox?queue=${queue}`);

    const group = page.getByRole("group", { name: "3 tasks: 401 from the billing API" });
    await expect(group).toBeVisible();
    await expect(page.getByRole("group", { name: /disk full/ })).toHaveCount(0); // one task is no group
    await group.getByRole("button", { name: "Resolve 3" }).click();
    const dialog = page.getByRole("dialog", { name: "Resolve 3 tasks?" });
    await expect(dialog).toContainText("mark it done by hand");
    await dialog.getByRole("button", { name: "Resolve 3 tasks" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Resolved 3 tasks." })).toBeVisible();
    await expect(group).toBeHidden();

    const card = page.getByRole("article", { name: other });
    await card.getByRole("button", { name: `Cancel ${other}` }).click();
    const confirm = page.getByRole("dialog", { name: `Cancel “${other}”?` });
    await confirm.getByRole("button", { name: "Keep it" }).click();
    await expect(confirm).toBeHidden();
    expect((await statuses(db, queue))[other]).toBe("escalated");
    await card.getByRole("button", { name: `Cancel ${other}` }).click();
    await confirm.getByRole("button", { name: "Cancel 1 task" }).click();
    await expect(card).toBeHidden();
    expect(await statuses(db, queue)).toEqual({ ...Object.fromEntries(billing.map((t) => [t, "done"])), [other]: "cancelled" });
  });

  test("the Inbox link's count follows escalations live in a second browser", async ({ browser, db, queue, actorOf }) => {
    const sara = await actorOf(SARA);
    const watcher = await pageAs(browser, SARA, "/");
    await live(watcher);
    const badge = watcher.getByRole("navigation", { name: "Main" }).getByTestId("inbox-count");
    // The badge is what the inbox asks a supervisor to decide (docs/attention.md): escalated tasks, lapsed leases, parked budgets.
    const escalatedNow = async () => Number((await db.execute<{ n: number }>(sql`SELECT
      (SELECT count(*) FROM tasks WHERE status = 'escalated') + (SELECT count(*) FROM task_lease WHERE lease_until <= now())
      + (SELECT count(*) FROM task_questions x JOIN tasks t ON t.id = x.task_id WHERE x.kind = 'budget' AND x.answered_at IS NULL
           AND x.expired_at IS NULL AND x.deadline > now() AND t.status = 'awaiting_input') AS n`))[0]!.n);
    // The number as seen (the screen reader's words beside it name each kind with its own count).
    const shown = async () => ((await badge.count()) === 0 ? 0 : Number((await badge.locator("[aria-hidden]").innerText()).replace(/\D/g, "")));
    // Other tests escalate tasks too: the badge must agree with the database, whatever it holds.
    await expect.poll(async () => (await shown()) === (await escalatedNow())).toBe(true);

    await escalate(db, sara, queue, [`Live one ${queue}`, `Live two ${queue}`]);
    await expect.poll(async () => (await shown()) === (await escalatedNow())).toBe(true);
    const before = await shown();
    const acting = await pageAs(browser, SARA, `/inbox?queue=${queue}`);
    await acting.getByRole("button", { name: "Requeue all 2 matching" }).click();
    await acting.getByRole("dialog", { name: "Requeue 2 tasks?" }).getByRole("button", { name: "Requeue 2 tasks" }).click();
    await expect(acting.getByRole("status").filter({ hasText: "Requeued 2 tasks." })).toBeVisible();
    await expect.poll(async () => (await shown()) === (await escalatedNow())).toBe(true);
    expect(before).toBeGreaterThanOrEqual(2);
    await watcher.context().close();
    await acting.context().close();
  });
});
