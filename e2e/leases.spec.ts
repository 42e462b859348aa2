import { addComment, createActor, perform, renew } from "../lib/tasks";
import { AMAL, SARA } from "./people";
import { expect, signIn, test } from "./fixtures";
import { claimAs, makeTask, must, startAs } from "./seed";

// Why is this held? and input read before done (docs/leases.md): the task page's lease line in
// words, and others' comments marked unread for the holder until the holder marks them read.

test.describe("the lease line and unread input", () => {
  test("an agent's task: held by it, renewed, its progress; a person's comment shows unread for the agent, at 1440 and 390 px", async ({ page, db, queue, actorOf }) => {
    const agent = await createActor(db, "agent", `import-bot-${Math.random().toString(36).slice(2, 6)}`);
    let task = await makeTask(db, await actorOf(SARA), { title: `Import the ledger ${queue}`, queue });
    task = await startAs(db, agent, await claimAs(db, agent, task));
    task = must(await perform(renew, { taskId: task.id, version: task.version, progress: "row 4,000 of 9,000" }, { db, actor: agent }));
    must(await perform(addComment, { taskId: task.id, body: "Skip the archived rows" }, { db, actor: await actorOf(SARA) }));

    await signIn(page, AMAL, `/tasks/${task.id}`);
    for (const [width, height] of [[1440, 900], [390, 844]] as const) {
      await page.setViewportSize({ width, height });
      await page.goto(`/tasks/${task.id}`);
      const line = page.getByTestId("lease-line");
      await expect(line).toHaveAttribute("data-state", "held");
      await expect(line).toContainText(new RegExp(`^Held by ${agent.name} until \\d{1,2}:\\d{2}.*, renewed 1 time, last progress (just now|\\d+ minutes? ago)`));
      const unread = page.getByTestId("unread");
      await expect(unread).toContainText(`Unread by ${agent.name}`);
      await expect(page.getByTestId("unread-comment")).toHaveText(/unread\s*Sara.*“Skip the archived rows”/);
      await expect(unread.getByRole("button", { name: "Mark read" })).toHaveCount(0); // the agent's to acknowledge, not Amal's
      await page.screenshot({ path: `/tmp/h53b-lease-agent-${width}.png`, fullPage: true });
    }
  });

  test("a person's own task: the comment is unread for them until they mark it read", async ({ page, db, queue, actorOf }) => {
    const amal = await actorOf(AMAL);
    let task = await makeTask(db, await actorOf(SARA), { title: `Call the customer ${queue}`, queue });
    task = await startAs(db, amal, await claimAs(db, amal, task));
    must(await perform(addComment, { taskId: task.id, body: "They prefer a credit note" }, { db, actor: await actorOf(SARA) }));

    await signIn(page, AMAL, `/tasks/${task.id}`);
    await expect(page.getByTestId("lease-line")).toContainText("Held by Amal");
    const unread = page.getByTestId("unread");
    await expect(unread).toContainText("Unread comments for you");
    await expect(page.getByTestId("unread-comment")).toContainText("They prefer a credit note");
    await page.screenshot({ path: "/tmp/h53b-lease-person-1440.png", fullPage: true });
    await unread.getByRole("button", { name: "Mark read" }).click();
    await expect(page.getByTestId("unread")).toHaveCount(0);
  });
});
