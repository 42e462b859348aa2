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
    const form = page.getByRole("form", { name: "New queue" });
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("Description").fill("Site inspections");
    await form.getByLabel("Lease length (seconds)").fill("300");
    await form.getByRole("button", { name: "Create queue" }).click();
    await expect(page.getByRole("status").filter({ hasText: `Created queue ${name}` })).toBeVisible();
    const settings = page.getByRole("form", { name: `Settings of ${name}` });
    await expect(settings.getByTestId("queue-description")).toHaveText("Site inspections");
    await expect(settings.getByLabel("Lease length (seconds)")).toHaveValue("300");

    // The staff member's open form learns the new queue without a reload, and can use it.
    await expect(option).toHaveCount(1);
    await picker.selectOption(name);
    await staff.getByRole("form", { name: "New task" }).getByLabel("Title").fill(`Inspect 7 ${queue}`);
    await staff.getByRole("button", { name: "Create task" }).click();
    await expect(staff.getByRole("status").filter({ hasText: `Created “Inspect 7 ${queue}”` })).toContainText(`in ${name}`);

    // Archive: the confirmation says what it does and what happens to the open task.
    await settings.getByRole("button", { name: `Archive ${name}` }).click();
    const dialog = page.getByRole("dialog", { name: `Archive ${name}?` });
    await expect(dialog).toContainText("hides");
    await expect(dialog).toContainText("Its 1 open task stay");
    await dialog.getByRole("button", { name: `Archive ${name}` }).click();
    await expect(dialog).toBeHidden();
    const archived = page.getByRole("region", { name: `Archived queue ${name}` });
    await expect(archived).toContainText("Archived by Sara");
    await expect(settings).toBeHidden();

    // (The create closed the form.) Opened again, the picker no longer offers the queue.
    await staff.getByRole("button", { name: "New task" }).click();
    await expect(option).toHaveCount(0);
    const [row] = await db.execute<{ archived: boolean }>(sql`SELECT archived_at IS NOT NULL AS archived FROM queues WHERE name = ${name}`);
    expect(row?.archived).toBe(true);

    // Restored, it is back in the picker.
    await archived.getByRole("button", { name: `Restore ${name}` }).click();
    await expect(page.getByRole("form", { name: `Settings of ${name}` })).toBeVisible();
    await expect(option).toHaveCount(1);
    await staff.close();
  });

  test("counts change live as tasks move; a name with spaces is refused in words and makes nothing", async ({ page, db, queue, actorOf }) => {
    await signIn(page, SARA, "/queues");
    await live(page);
    const settings = page.getByRole("form", { name: `Settings of ${queue}` });
    await expect(settings.getByTestId("count-queued")).toHaveText("0 queued");

    const task = await makeTask(db, await actorOf(SARA), { title: `Counted ${queue}`, queue });
    await expect(settings.getByTestId("count-queued")).toHaveText("1 queued");
    await claimAs(db, await actorOf(AMAL), task);
    await expect(settings.getByTestId("count-queued")).toHaveText("0 queued");
    await expect(settings.getByTestId("count-claimed")).toHaveText("1 claimed");

    const form = page.getByRole("form", { name: "New queue" });
    await form.getByLabel("Name").fill("my queue");
    await form.getByRole("button", { name: "Create queue" }).click();
    await expect(form.getByRole("alert")).toHaveText("Name must be 1 to 64 characters of a-z, 0-9, '.', '_' or '-': no spaces or capitals.");
    await expect(form.getByLabel("Name")).toHaveAttribute("aria-invalid", "true");
    const made = await db.execute(sql`SELECT 1 FROM queues WHERE name = 'my queue'`);
    expect(made).toHaveLength(0);
  });
});
