import { perform, setQueueSettings } from "../lib/tasks";
import { AMAL, BILAL, SARA } from "./people";
import { expect, pageAs, signIn, test } from "./fixtures";
import { makeTask, must } from "./seed";

// Hand-offs, who may claim and the feedback of issue 12, as a person meets them.

test.describe("hand-offs and feedback", () => {
  test("a release's hand-off is at the top of the next claimant's task page; the last strike is said before it goes to the inbox", async ({ browser, db, queue, actorOf }) => {
    const sara = await actorOf(SARA);
    must(await perform(setQueueSettings, { queue, maxFailures: 1 }, { db, actor: sara }));
    const title = `Renew the lift certificate ${queue}`;
    const task = await makeTask(db, sara, { title, queue });
    const amal = await pageAs(browser, AMAL, `/tasks/${task.id}`);
    await amal.getByRole("button", { name: "Claim" }).click();
    await amal.getByRole("button", { name: "Release…" }).click();
    const release = amal.getByRole("dialog", { name: `Release “${title}”` });
    await release.getByLabel("Next step").fill("Book the inspector");
    await release.getByRole("button", { name: "Release" }).click();
    await expect(release.getByRole("alert")).toHaveText("One field needs fixing: see the field marked above.");
    await expect(release.getByLabel("What you did")).toHaveAccessibleDescription(/Write what you did in the hand-off summary, or leave the whole hand-off empty\./);
    await expect(release.getByLabel("What you did")).toBeFocused();
    await release.getByLabel("What you did").fill("Found last year's certificate");
    await release.getByLabel("Links (one per line)").fill("https://files.test/lift-2025.pdf");
    await release.getByRole("button", { name: "Release" }).click();
    await expect(amal.getByRole("status").filter({ hasText: "Released" })).toContainText(`Released “${title}”: it is back in the queue with your hand-off note.`);

    const bilal = await pageAs(browser, BILAL, `/tasks/${task.id}`);
    const handoff = bilal.getByRole("region", { name: /^Hand-off from Amal/ });
    await expect(handoff).toContainText("Found last year's certificate");
    await expect(handoff).toContainText("Next: Book the inspector");
    await expect(handoff.getByRole("link", { name: "https://files.test/lift-2025.pdf" })).toBeVisible();
    await bilal.getByRole("button", { name: "Claim" }).click();
    await bilal.getByRole("button", { name: "Fail…" }).click();
    const fail = bilal.getByRole("dialog", { name: /^Fail/ });
    await expect(fail.getByTestId("last-strike")).toContainText("This is its last strike");
    await fail.getByLabel("Reason").fill("The inspector is booked out");
    await fail.getByRole("button", { name: "Report failure" }).click();
    await expect(bilal.getByRole("status").filter({ hasText: "last strike" })).toContainText(`“${title}” failed its last strike and went to the supervisors' inbox.`);
    await expect(bilal.getByTestId("task-status")).toHaveAttribute("data-status", "escalated");
    await expect(bilal.getByTestId("why-no-actions")).toContainText("only a supervisor can requeue, resolve or cancel it");
    await amal.context().close();
    await bilal.context().close();
  });

  test("people see no Claim on an agents-only queue, and why; staff sent from a supervisor page are told why", async ({ page, db, queue, actorOf }) => {
    const sara = await actorOf(SARA);
    must(await perform(setQueueSettings, { queue, claimants: "agents" }, { db, actor: sara }));
    const task = await makeTask(db, sara, { title: `Scrape the rota ${queue}`, queue });
    await signIn(page, AMAL, `/tasks/${task.id}`);
    await expect(page.getByTestId("why-no-actions")).toHaveText(`Only agents claim tasks in queue ${queue}: a person cannot take this one.`);
    await expect(page.getByRole("button", { name: "Claim" })).toHaveCount(0);
    await page.goto(`/?queue=${queue}`);
    await expect(page.getByTestId("claim-next-excluded")).toContainText(`Only agents claim tasks in queue ${queue}`);
    await expect(page.getByRole("button", { name: `Claim next in ${queue}` })).toHaveCount(0);

    await page.goto("/inbox");
    await expect(page.getByTestId("denied")).toHaveText(/Only supervisors may open the escalation inbox, so you were brought back to the board/);
    // Every supervisors' page says so, the newer ones too.
    for (const [path, words] of [["/webhooks", "webhooks"], ["/schedules", "schedules"]]) {
      await page.goto(path!);
      await expect(page.getByTestId("denied")).toHaveText(new RegExp(`Only supervisors may open ${words}, so you were brought back to the board`));
    }
  });
});
