import { createActor, createTask, perform } from "../lib/tasks";
import { AMAL, SARA } from "./people";
import { expect, signIn, test } from "./fixtures";
import { claimAs, makeTask, startAs } from "./seed";

test.describe("the work graph", () => {
  test("the board shows what a task waits for and when it may start; the task page says why, in words", async ({ page, db, queue, actorOf }) => {
    const sara = await actorOf(SARA);
    const agent = await createActor(db, "agent", `agent-${queue.slice(-4)}`);
    const parent = await startAs(db, agent, await claimAs(db, agent, await makeTask(db, sara, { title: `Parent ${queue}`, queue })));
    const other = await makeTask(db, sara, { title: `Other ${queue}`, queue });
    const later = new Date(Date.now() + 2 * 3600_000).toISOString();
    const created = await perform(createTask, { title: `Child ${queue}`, queue, dependsOn: [parent.id, other.id], notBefore: later }, { db, actor: sara });
    if (!created.ok) throw new Error(created.error.message);
    const child = created.value;

    await signIn(page, AMAL, `/?queue=${queue}`);
    const card = page.getByRole("article", { name: `Child ${queue}` });
    await expect(card.getByTestId("blocked-by")).toHaveText(`blocked by “Parent ${queue}” (#${parent.id}), “Other ${queue}” (#${other.id})`);
    await expect(card.getByTestId("not-before")).toContainText(/not before \d\d:\d\d \(in 2 h\)/);
    await card.getByRole("link", { name: `#${parent.id}` }).click();
    await expect(page).toHaveURL(new RegExp(`/tasks/${parent.id}$`));
    await expect(page.getByTestId("needed-by")).toContainText(`#${child.id}`);

    await page.goto(`/tasks/${child.id}`);
    await expect(page.getByTestId("depends-on")).toContainText(`“Parent ${queue}” (#${parent.id}, started), “Other ${queue}” (#${other.id}, queued)`);
    const reasons = page.getByTestId("readiness").getByRole("listitem");
    await expect(reasons.nth(0)).toHaveText(`Waiting for #${parent.id} (started by ${agent.name})`);
    await expect(reasons.nth(1)).toHaveText(`Waiting for #${other.id} (queued)`);
    // The engine's sentence names an ISO instant; people read it as a local date and time.
    await expect(reasons.nth(2)).toHaveText(/^Not before \S+ \d\d:\d\d:\d\d$/);
  });

  test("the readiness panel follows the reader's own claim on the task page, without waiting for the live stream", async ({ page, db, queue, actorOf }) => {
    const task = await makeTask(db, await actorOf(SARA), { title: `Ready ${queue}`, queue });
    await signIn(page, AMAL, `/tasks/${task.id}`);
    // No live stream: only the claim's own answer can tell the panel that the task is taken.
    await page.context().route("**/api/v1/events**", (route) => route.abort());
    await page.reload();
    const readiness = page.getByTestId("readiness");
    await expect(readiness).toHaveText("You can claim it now.");
    await page.getByRole("button", { name: "Claim", exact: true }).click();
    await expect(readiness.getByRole("listitem")).toHaveText(/^Claimed by you; the lease runs until /);
    await expect(readiness).not.toContainText("You can claim it now.");
  });

  test("a supervisor pauses a queue on /queues; the board says so and by whom; resuming clears it", async ({ page, browser, queue, db, actorOf }) => {
    await makeTask(db, await actorOf(SARA), { title: `Waiting ${queue}`, queue });
    await signIn(page, SARA, "/queues");
    const row = page.getByTestId(`queue-row-${queue}`);
    await row.getByRole("switch", { name: `Pause ${queue}` }).click();
    await row.getByRole("button", { name: `Open the settings of ${queue}` }).click();
    const drawer = page.getByRole("dialog", { name: `Queue ${queue}` });
    await expect(drawer.getByTestId("paused-note")).toContainText(`Paused by ${SARA.name}`);

    const amal = await browser.newPage();
    await signIn(amal, AMAL, `/?queue=${queue}`);
    await expect(amal.getByTestId("paused-queues")).toContainText(`Queue ${queue} is paused by ${SARA.name}`);

    await drawer.getByRole("button", { name: `Resume ${queue}` }).click();
    await expect(drawer.getByTestId("paused-note")).toBeHidden();
    await amal.reload();
    await expect(amal.getByText(`Queue ${queue} is paused`)).toBeHidden();
    await amal.close();
  });
});
