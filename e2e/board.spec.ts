import { AMAL, SARA } from "./people";
import { expect, signIn, test } from "./fixtures";
import { claimAs, makeTask } from "./seed";

test.describe("the board", () => {
  test("a staff member creates a task, claims it, starts it and completes it", async ({ page, queue }) => {
    const title = `Check the boiler ${queue}`;
    await signIn(page, AMAL, `/?queue=${queue}`);

    await page.getByRole("button", { name: "New task" }).click();
    const form = page.getByRole("form", { name: "New task" });
    await form.getByLabel("Title").fill(title);
    await form.getByLabel("Description").fill("Pressure should read 1.5 bar.");
    await form.getByLabel("Queue").selectOption(queue);
    await form.getByLabel("Priority").fill("3");
    await form.getByRole("button", { name: "Create task" }).click();

    const queued = page.getByRole("region", { name: "Queued" }).getByRole("article", { name: title });
    await expect(queued).toContainText("↑ 3"); // priority in arrows and words, never "P3"
    await expect(queued.getByTestId("owner")).toHaveText("nobody");
    await queued.getByRole("button", { name: "Claim" }).click();

    const claimed = page.getByRole("region", { name: "Claimed" }).getByRole("article", { name: title });
    await expect(claimed.getByTestId("owner")).toContainText("Amal");
    await expect(claimed.getByTestId("lease")).toHaveText(/^\d+:\d\d left$/);
    await claimed.getByRole("button", { name: "Start" }).click();

    const started = page.getByRole("region", { name: "Started" }).getByRole("article", { name: title });
    await expect(started.getByTestId("owner")).toContainText("Amal");
    await started.getByRole("button", { name: "Complete" }).click();

    const done = page.getByRole("region", { name: "Done" }).getByRole("article", { name: title });
    await expect(done).toBeVisible();
    await expect(done.getByRole("button")).toHaveCount(0);
    await expect(page.getByRole("region", { name: "Started" }).getByRole("article", { name: title })).toHaveCount(0);
  });

  test("'Claim next' takes the highest-priority task of the chosen queue", async ({ page, db, queue, actorOf }) => {
    const sara = await actorOf(SARA);
    await makeTask(db, sara, { title: `Low ${queue}`, queue, priority: 1 });
    await makeTask(db, sara, { title: `High ${queue}`, queue, priority: 9 });
    await signIn(page, AMAL, `/?queue=${queue}`);
    await page.getByRole("button", { name: `Claim next in ${queue}` }).click();
    // Not the paused-queues banner (also a status) another spec may be showing meanwhile.
    await expect(page.getByRole("status").filter({ hasText: "You claimed" })).toContainText(`You claimed High ${queue}`);
    const claimed = page.getByRole("region", { name: "Claimed" }).getByRole("article", { name: `High ${queue}` });
    await expect(claimed.getByTestId("owner")).toContainText("Amal");
  });

  test("filters live in the URL and survive a reload", async ({ page, db, queue, actorOf }) => {
    const [sara, amal] = [await actorOf(SARA), await actorOf(AMAL)];
    await makeTask(db, sara, { title: `Someone's ${queue}`, queue });
    await claimAs(db, amal, await makeTask(db, sara, { title: `Mine ${queue}`, queue }));
    await signIn(page, AMAL);

    await page.getByLabel("Queue", { exact: true }).selectOption(queue);
    await expect(page).toHaveURL(new RegExp(`\\?queue=${queue}$`));
    await page.getByLabel("Status").selectOption("claimed");
    await expect(page).toHaveURL(/status=claimed/);
    await page.getByLabel("Owner").selectOption("me");
    await expect(page).toHaveURL(/mine=1/);

    await page.reload();
    await expect(page.getByLabel("Queue", { exact: true })).toHaveValue(queue);
    await expect(page.getByLabel("Status")).toHaveValue("claimed");
    await expect(page.getByLabel("Owner")).toHaveValue("me");
    await expect(page.getByRole("checkbox", { name: "Needs check" })).not.toBeChecked();
    await expect(page.getByRole("region")).toHaveCount(1);
    await expect(page.getByRole("region", { name: "Claimed" }).getByRole("article")).toHaveText([new RegExp(`Mine ${queue}`)]);

    await page.getByRole("checkbox", { name: "Needs check" }).check();
    await expect(page).toHaveURL(/check=1/);
    await expect(page.getByRole("region", { name: "Claimed" })).toContainText("Nothing here.");
  });
});
