import { AMAL, BILAL, SARA } from "./people";
import { expect, live, pageAs, test } from "./fixtures";
import { claimAs, makeTask } from "./seed";

test.describe("live boards", () => {
  test("Bilal's board shows Amal's claim, and a new task, without a reload", async ({ browser, db, queue, actorOf }) => {
    const title = `Sort the post ${queue}`;
    await makeTask(db, await actorOf(SARA), { title, queue });
    const amal = await pageAs(browser, AMAL, `/?queue=${queue}`);
    const bilal = await pageAs(browser, BILAL, `/?queue=${queue}`);
    await live(bilal);
    await bilal.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));

    await amal.getByRole("region", { name: "Queued" }).getByRole("article", { name: title }).getByRole("button", { name: "Claim" }).click();
    const seenByBilal = bilal.getByRole("region", { name: "Claimed" }).getByRole("article", { name: title });
    await expect(seenByBilal.getByTestId("owner")).toContainText("Amal");
    await expect(seenByBilal.getByRole("button", { name: "Claim" })).toHaveCount(0);
    await expect(bilal.getByRole("region", { name: "Queued" }).getByRole("article", { name: title })).toHaveCount(0);

    await makeTask(db, await actorOf(SARA), { title: `Water the plants ${queue}`, queue });
    await expect(bilal.getByRole("region", { name: "Queued" }).getByRole("article", { name: `Water the plants ${queue}` })).toBeVisible();
    expect(await bilal.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    await amal.context().close();
    await bilal.context().close();
  });

  test("a stale claim says who got there first, and when", async ({ browser, db, queue, actorOf }) => {
    const title = `Answer the complaint ${queue}`;
    const task = await makeTask(db, await actorOf(SARA), { title, queue });
    const bilal = await pageAs(browser, BILAL, `/?queue=${queue}`);
    // Bilal's tab loses its event stream, so his board goes stale…
    await bilal.context().route("**/api/v1/events**", (route) => route.abort());
    await bilal.reload();
    const card = bilal.getByRole("region", { name: "Queued" }).getByRole("article", { name: title });
    await expect(card).toBeVisible();
    // …while Amal claims the task.
    await claimAs(db, await actorOf(AMAL), task);

    await card.getByRole("button", { name: "Claim" }).click();
    await expect(bilal.getByRole("alert").filter({ hasText: "claimed" })).toContainText(/^Amal claimed this first — \d\d:\d\d:\d\d\./);
    // The optimistic claim is rolled back to what the server says: Amal holds it.
    const claimed = bilal.getByRole("region", { name: "Claimed" }).getByRole("article", { name: title });
    await expect(claimed.getByTestId("owner")).toContainText("Amal");
    await bilal.context().close();
  });
});
