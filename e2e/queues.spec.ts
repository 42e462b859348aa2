import { sql } from "drizzle-orm";
import { AMAL, SARA } from "./people";
import { expect, live, signIn, test } from "./fixtures";
import { claimAs, makeTask } from "./seed";

// Queues as things a supervisor owns (issue 15 item 3): made on purpose on /queues, live in
// everyone's pickers, archived with a confirmation that says what it does; live counts.

test.describe("queues", () => {
  test("a supervisor creates a queue; staff see it in the picker live; archived, it leaves the picker", async ({ page, browser, db, queue }) => {
    const name = `${queue}-made`;
    const staff = await browser.newPage();
    await signIn(staff, AMAL, "/");
    await live(staff);
    await staff.getByRole("button", { name: "New task" }).click();
    const picker = staff.getByRole("form", { name: "New task" }).getByLabel("Queue");
    const option = picker.locator("option", { hasText: new RegExp(`^${name}$`) });
    await expect(option).toHaveCount(0);

    await signIn(page, SARA, "/queues");
    await page.getByRole("button", { name: "New queue" }).click();
    const form = page.getByRole("dialog", { name: "New queue" }).getByRole("form", { name: "New queue" });
    await expect(form.getByLabel("Name")).toBeFocused();
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("Description").fill("Site inspections");
    await form.getByLabel("Lease length (seconds)").fill("300");
    await form.getByRole("button", { name: "Create queue" }).click();
    await expect(page.getByRole("status").filter({ hasText: `Created queue ${name}` })).toBeVisible();
    await expect(page.getByRole("dialog", { name: "New queue" })).toBeHidden();
    // A row in the table; its settings are in its drawer.
    const queueRow = page.getByTestId(`queue-row-${name}`);
    await expect(queueRow.getByTestId("lease")).toHaveText("5 min");
    await queueRow.getByRole("button", { name: `Open the settings of ${name}` }).click();
    const drawer = page.getByRole("dialog", { name: `Queue ${name}` });
    const settings = drawer.getByRole("form", { name: `Settings of ${name}` });
    await expect(drawer.getByTestId("queue-description")).toHaveText("Site inspections");
    await expect(settings.getByLabel("Lease length (seconds)")).toHaveValue("300");

    // The staff member's open form learns the new queue without a reload, and can use it.
    await expect(option).toHaveCount(1);
    await picker.selectOption(name);
    await staff.getByRole("form", { name: "New task" }).getByLabel("Title").fill(`Inspect 7 ${queue}`);
    await staff.getByRole("button", { name: "Create task" }).click();
    await expect(staff.getByRole("status").filter({ hasText: `Created “Inspect 7 ${queue}”` })).toContainText(`in ${name}`);

    // Archive: the confirmation says what it does and what happens to the open task.
    await expect(drawer.getByTestId("count-queued")).toHaveText("1 queued"); // live, in the open drawer
    await drawer.getByRole("button", { name: `Archive ${name}` }).click();
    const dialog = page.getByRole("dialog", { name: `Archive ${name}?` });
    await expect(dialog).toContainText("hides");
    await expect(dialog).toContainText("Its 1 open task stays");
    await dialog.getByRole("button", { name: `Archive ${name}` }).click();
    await expect(dialog).toBeHidden();
    const archived = page.getByRole("region", { name: `Archived queue ${name}` });
    await expect(archived).toContainText("Archived by Sara");
    await expect(drawer).toBeHidden();
    await expect(queueRow).toBeHidden();

    // (The create closed the form.) Opened again, the picker no longer offers the queue.
    await staff.getByRole("button", { name: "New task" }).click();
    await expect(option).toHaveCount(0);
    const [row] = await db.execute<{ archived: boolean }>(sql`SELECT archived_at IS NOT NULL AS archived FROM queues WHERE name = ${name}`);
    expect(row?.archived).toBe(true);

    // Restored, it is back in the picker.
    await archived.getByRole("button", { name: `Restore ${name}` }).click();
    await expect(queueRow).toBeVisible();
    await expect(option).toHaveCount(1);
    await staff.close();
  });

  test("counts change live as tasks move; a name with spaces is refused in words and makes nothing", async ({ page, db, queue, actorOf }) => {
    await signIn(page, SARA, "/queues");
    await live(page);
    const queueRow = page.getByTestId(`queue-row-${queue}`);
    await expect(queueRow.getByTestId("queued")).toHaveText("0");
    await expect(queueRow.getByTestId("held")).toHaveText("0");

    const task = await makeTask(db, await actorOf(SARA), { title: `Counted ${queue}`, queue });
    await expect(queueRow.getByTestId("queued")).toHaveText("1");
    await claimAs(db, await actorOf(AMAL), task);
    await expect(queueRow.getByTestId("queued")).toHaveText("0");
    await expect(queueRow.getByTestId("held")).toHaveText("1");

    // Several wrong values: each is said on its own field, all at once, and nothing is sent.
    await page.getByRole("button", { name: "New queue" }).click();
    const form = page.getByRole("form", { name: "New queue" });
    await form.getByLabel("Name").fill("my queue");
    await form.getByLabel("Max failures").fill("0");
    await form.getByRole("button", { name: "Create queue" }).click();
    await expect(form.getByRole("alert")).toHaveText("2 fields need fixing: see the fields marked above.");
    await expect(form.getByLabel("Name")).toHaveAttribute("aria-invalid", "true");
    await expect(form.getByLabel("Name")).toHaveAccessibleDescription(/Name must be 1 to 64 characters of a-z, 0-9, '\.', '_' or '-': no spaces or capitals\./);
    await expect(form.getByLabel("Name")).toBeFocused();
    await expect(form.getByLabel("Max failures")).toHaveAccessibleDescription(/Max failures must be a whole number from 1 to 100\./);
    await expect(form.getByLabel("Lease length (seconds)")).not.toHaveAttribute("aria-invalid", "true");
    const made = await db.execute(sql`SELECT 1 FROM queues WHERE name = 'my queue'`);
    expect(made).toHaveLength(0);
  });
});

// Issue 27 item 7: /queues is a dense table, one row a queue, with its settings in a drawer;
// the paused switch acts at once and its toast offers Undo, a real call of the inverse.
test.describe("the queues table", () => {
  test("the paused switch pauses at once; Undo on its toast resumes; the drawer saves and names the change", async ({ page, db, queue, actorOf }) => {
    await makeTask(db, await actorOf(SARA), { title: `Row ${queue}`, queue });
    await signIn(page, SARA, "/queues");
    const table = page.getByRole("table", { name: "Queues" });
    await expect(table.getByRole("columnheader")).toHaveText(["Queue", "Queued", "Held", "Escalated", "Done/h", "Paused", "Lease", "Settings"]);
    const queueRow = page.getByTestId(`queue-row-${queue}`);
    await expect(queueRow.getByRole("rowheader")).toContainText(queue);
    await expect(queueRow.getByTestId("queued")).toHaveText("1");
    await expect(queueRow.getByTestId("lease")).toHaveText("2 min");

    const paused = queueRow.getByRole("switch", { name: `Pause ${queue}` });
    await expect(paused).toHaveAttribute("aria-checked", "false");
    await paused.click();
    await expect(paused).toHaveAttribute("aria-checked", "true");
    const toast = page.getByRole("status").filter({ hasText: `Paused ${queue}` });
    await expect(toast).toContainText("claims hand out nothing");
    await expect.poll(async () => (await db.execute<{ paused: boolean }>(sql`SELECT paused FROM queues WHERE name = ${queue}`))[0]!.paused).toBe(true);
    await toast.getByRole("button", { name: `Undo: resume ${queue}` }).click();
    await expect(paused).toHaveAttribute("aria-checked", "false");
    await expect(page.getByRole("status").filter({ hasText: `Resumed ${queue}` })).toBeVisible();
    await expect.poll(async () => (await db.execute<{ paused: boolean }>(sql`SELECT paused FROM queues WHERE name = ${queue}`))[0]!.paused).toBe(false);
    // Both moves are in the log: Undo was a call, not a cache trick.
    const moves = await db.execute<{ type: string }>(sql`SELECT type FROM task_events WHERE queue = ${queue} AND type IN ('queue_paused', 'queue_resumed') ORDER BY id`);
    expect(moves.map((m) => m.type)).toEqual(["queue_paused", "queue_resumed"]);

    // The drawer: a dialog with the settings form; Escape closes it and focus goes back.
    const opener = queueRow.getByRole("button", { name: `Open the settings of ${queue}` });
    await opener.click();
    const drawer = page.getByRole("dialog", { name: `Queue ${queue}` });
    await expect(drawer).toBeVisible();
    const form = drawer.getByRole("form", { name: `Settings of ${queue}` });
    await form.getByLabel("Lease length (seconds)").fill("90");
    await form.getByLabel("Who may claim").selectOption("agents");
    await form.getByRole("button", { name: "Save" }).click();
    await expect(page.getByRole("status").filter({ hasText: `Saved ${queue}:` })).toHaveText(
      new RegExp(`Saved ${queue}: lease length 120 → 90 s, who may claim anyone → agents only\\.`),
    );
    await page.keyboard.press("Escape");
    await expect(drawer).toBeHidden();
    await expect(opener).toBeFocused();
    await expect(queueRow.getByTestId("lease")).toHaveText("90 s");
  });
});
