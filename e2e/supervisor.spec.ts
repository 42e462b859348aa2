import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { SARA } from "./people";
import { aloneWithTheDatabase, expect, live, signIn, test } from "./fixtures";
import { abandonedWithSideEffect, escalated, makeTask } from "./seed";

async function statusOf(db: Db, id: string) {
  const [row] = await db.execute<{ status: string; failure_count: number }>(sql`SELECT status, failure_count FROM tasks WHERE id = ${id}::bigint`);
  return row!;
}

test.describe("the supervisors' inbox", () => {
  test("an escalated task shows every failure reason, and requeueing it resets its failures", async ({ page, db, queue, actorOf }) => {
    const title = `Import the meter readings ${queue}`;
    const reasons = ["CSV had no header", "Row 12: date out of range", "Upstream returned 503"];
    const task = await escalated(db, await actorOf(SARA), { title, queue }, reasons);

    await signIn(page, SARA, `/inbox?queue=${queue}`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Escalation inbox");
    const card = page.getByRole("article", { name: title });
    // One row: the count and the last reason; Details opens every reason.
    await expect(card.getByTestId("failure-count")).toHaveText("3 failures");
    await expect(card.getByTestId("last-reason")).toHaveText("Upstream returned 503");
    await card.getByRole("button", { name: `Details of ${title}` }).click();
    await expect(card.getByRole("button", { name: `Details of ${title}` })).toHaveAttribute("aria-expanded", "true");
    const failures = card.getByRole("list", { name: `Failure reasons of ${title}` }).getByRole("listitem");
    await expect(failures).toHaveCount(3);
    for (const [i, reason] of reasons.entries()) await expect(failures.nth(i)).toContainText(reason);

    await card.getByRole("button", { name: `Requeue ${title}` }).click();
    await expect(card).toBeHidden();
    await expect(page.getByText(`Nothing is escalated in ${queue}.`)).toBeVisible();
    await expect.poll(() => statusOf(db, task.id)).toEqual({ status: "queued", failure_count: 0 });
  });

  test("bulk resolve settles every escalated task of the filter, and a new escalation arrives live", async ({ page, db, queue, actorOf }) => {
    const sara = await actorOf(SARA);
    const one = await escalated(db, sara, { title: `First ${queue}`, queue }, ["a", "b", "c"]);
    const two = await escalated(db, sara, { title: `Second ${queue}`, queue }, ["d", "e", "f"]);

    await signIn(page, SARA, `/inbox?queue=${queue}`);
    await live(page);
    await expect(page.getByRole("article")).toHaveCount(2);
    // A third escalates while the page is open: the event stream brings it in.
    const three = await escalated(db, sara, { title: `Third ${queue}`, queue }, ["g", "h", "i"]);
    await expect(page.getByRole("article", { name: `Third ${queue}` })).toBeVisible();
    await page.getByRole("article", { name: `Third ${queue}` }).getByRole("button", { name: `Cancel Third ${queue}` }).click();
    // Cancel asks first (and says what it means).
    const confirmCancel = page.getByRole("dialog", { name: `Cancel “Third ${queue}”?` });
    await expect(confirmCancel).toContainText("drop it for good");
    await confirmCancel.getByRole("button", { name: "Cancel 1 task" }).click();
    await expect(page.getByRole("article")).toHaveCount(2);

    await page.getByRole("button", { name: "Resolve all 2 matching" }).click();
    const dialog = page.getByRole("dialog", { name: "Resolve 2 tasks?" });
    await dialog.getByRole("button", { name: "Resolve 2 tasks" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Resolved 2 tasks." })).toBeVisible();
    await expect(page.getByRole("article")).toHaveCount(0);
    expect((await statusOf(db, one.id)).status).toBe("done");
    expect((await statusOf(db, two.id)).status).toBe("done");
    expect((await statusOf(db, three.id)).status).toBe("cancelled");
  });

  test("a tripped breaker shows its reason and what it holds back; resetting it clears it", async ({ page, db, queue, actorOf }, testInfo) => {
    const title = `Email the landlord ${queue}`;
    await abandonedWithSideEffect(db, await actorOf(SARA), { title, queue }, "Sent the reminder email");
    const reason = `e2e: 7 lease expiries within 300 s reached the threshold of 5 (${queue})`;
    await db.execute(sql`UPDATE queues SET breaker_tripped_at = now(), breaker_reason = ${reason} WHERE name = ${queue}`);

    await signIn(page, SARA, "/inbox");
    const breaker = page.getByRole("region", { name: `Breaker of ${queue}` });
    await expect(breaker.getByTestId("breaker-reason")).toHaveText(reason);
    await expect(breaker).toContainText("Held back: 1 lapsed task");
    await expect(breaker.getByRole("link", { name: title })).toBeVisible();

    // The sweep honours the breaker: it says what it held back and changes nothing here.
    // It sweeps every queue, so no other test may have a lapsed lease meanwhile (task.spec.ts does).
    await aloneWithTheDatabase(testInfo, async () => {
      await page.getByRole("button", { name: "Sweep expired leases" }).click();
      await expect(page.getByRole("status").filter({ hasText: /Swept \d+ expired lease/ })).toContainText(queue);
    });

    await breaker.getByRole("button", { name: "Reset breaker" }).click();
    await expect(breaker).toBeHidden();
    const [row] = await db.execute<{ tripped: boolean }>(sql`SELECT breaker_tripped_at IS NOT NULL AS tripped FROM queues WHERE name = ${queue}`);
    expect(row!.tripped).toBe(false);
  });
});

test.describe("agent tokens", () => {
  test("a token is shown once, works as a bearer token, and stops working once revoked", async ({ page, request, queue }) => {
    const name = `robot-${queue}`;
    await signIn(page, SARA, "/agents");
    await page.getByLabel("Token name").fill(name);
    await page.getByLabel("Role").selectOption("agent");
    await page.getByRole("button", { name: "Create token" }).click();

    const dialog = page.getByRole("dialog", { name: `Token ${name} created` });
    await expect(dialog).toContainText("won't be shown again");
    await expect(dialog.getByRole("button", { name: "Copy token" })).toBeVisible();
    const token = await dialog.getByLabel("Token").inputValue();
    expect(token).toMatch(/^cb_[A-Za-z0-9_-]{43}$/);
    await dialog.getByRole("button", { name: "Done" }).click();
    await expect(dialog).toBeHidden();

    const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name, exact: true }) });
    await expect(row).toContainText(token.slice(0, 9));
    await expect(row).toContainText("live");
    await expect(page.locator("body")).not.toContainText(token); // shown once: gone with the dialog

    const asAgent = { headers: { Authorization: `Bearer ${token}` } };
    expect((await request.get("/api/v1/tasks?limit=1", asAgent)).status()).toBe(200);

    await row.getByRole("button", { name: `Revoke ${name}` }).click();
    await page.getByRole("dialog", { name: `Revoke token ${name}?` }).getByRole("button", { name: "Revoke token" }).click();
    await expect(row).toContainText("revoked");
    expect((await request.get("/api/v1/tasks?limit=1", asAgent)).status()).toBe(401);
  });
});

test.describe("queue settings", () => {
  test("a supervisor changes a queue's lease length; an out-of-range value is refused in words", async ({ page, db, queue, actorOf }) => {
    await makeTask(db, await actorOf(SARA), { title: `Make the queue ${queue}`, queue });
    await signIn(page, SARA, "/queues");
    const queueRow = page.getByTestId(`queue-row-${queue}`);
    await expect(queueRow).toContainText("healthy"); // issue 27: not "breaker closed"
    const open = () => queueRow.getByRole("button", { name: `Open the settings of ${queue}` }).click();
    await open();
    const form = page.getByRole("dialog", { name: `Queue ${queue}` }).getByRole("form", { name: `Settings of ${queue}` });
    const lease = form.getByLabel("Lease length (seconds)");
    await expect(lease).toHaveValue("120");

    await lease.fill("240");
    await form.getByRole("button", { name: "Save" }).click();
    await expect(form.getByRole("status")).toHaveText("Saved.");
    // The toast names the queue and the change.
    await expect(page.getByRole("status").filter({ hasText: `Saved ${queue}:` })).toHaveText(new RegExp(`Saved ${queue}: lease length 120 → 240 s\.`));
    const [row] = await db.execute<{ lease_seconds: number }>(sql`SELECT lease_seconds FROM queues WHERE name = ${queue}`);
    expect(row!.lease_seconds).toBe(240);
    await page.reload();
    await expect(queueRow.getByTestId("lease")).toHaveText("4 min");
    await open();
    await expect(form.getByLabel("Lease length (seconds)")).toHaveValue("240");

    // Two values out of range: both said on their fields at once, in words; nothing is sent.
    await form.getByLabel("Lease length (seconds)").fill("4");
    await form.getByLabel("Max failures").fill("101");
    await form.getByRole("button", { name: "Save" }).click();
    await expect(form.getByRole("alert")).toHaveText("2 settings need fixing: see the fields marked above.");
    await expect(form.getByLabel("Lease length (seconds)")).toHaveAttribute("aria-invalid", "true");
    await expect(form.getByLabel("Lease length (seconds)")).toHaveAccessibleDescription(/Lease length must be a whole number from 5 to 3,600 seconds\./);
    await expect(form.getByLabel("Max failures")).toHaveAccessibleDescription(/Max failures must be a whole number from 1 to 100 failures\./);
    await expect(form.getByLabel("Lease length (seconds)")).toBeFocused();
    const [after] = await db.execute<{ lease_seconds: number }>(sql`SELECT lease_seconds FROM queues WHERE name = ${queue}`);
    expect(after!.lease_seconds).toBe(240);
  });
});

test.describe("supervisor pages at 390px", () => {
  test.use({ viewport: { width: 390, height: 844 } });
  test("the inbox, agents, people and queues pages fit a phone's width", async ({ page }) => {
    await signIn(page, SARA, "/inbox");
    for (const path of ["/inbox", "/agents", "/people", "/queues"]) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${path} scrolls sideways`).toBeLessThanOrEqual(0);
    }
  });
});
