import { sql } from "drizzle-orm";
import { claim, createActor, perform, recordCheckpoint, start } from "../lib/tasks";
import { SARA } from "./people";
import { expect, signIn, test } from "./fixtures";
import { makeTask, must } from "./seed";

// Checkpoints (docs/checkpoints.md) as a person reads them: an agent checkpointed steps 1–3 and
// went silent; its successor was handed step 3 and went on at 4. The task page's history,
// grouped by attempt, says which steps each attempt recorded — at a desk's width and a phone's.

for (const width of [1440, 390]) {
  test(`the task page shows each attempt's steps in its history at ${width} px`, async ({ page, db, queue, actorOf }) => {
    await page.setViewportSize({ width, height: 900 });
    const sara = await actorOf(SARA);
    const first = await createActor(db, "agent", `importer-a-${queue.slice(-6)}`);
    const second = await createActor(db, "agent", `importer-b-${queue.slice(-6)}`);
    const task = await makeTask(db, sara, { title: `Import five pages ${queue}`, queue });
    const asFirst = { db, actor: first };
    let held = must(await perform(claim, { taskId: task.id, version: task.version }, asFirst));
    held = must(await perform(start, { taskId: task.id, version: held.version }, asFirst));
    for (const step of [1, 2, 3]) must(await perform(recordCheckpoint, { taskId: task.id, version: held.version, step, state: { page: step } }, asFirst));
    // The first agent goes silent: its lease lapses, and the second takes the task over.
    await db.execute(sql`UPDATE tasks SET lease_until = now() - interval '5 seconds' WHERE id = ${task.id}::bigint`);
    const asSecond = { db, actor: second };
    const taken = must(await perform(claim, { taskId: task.id, version: held.version }, asSecond));
    expect(taken.checkpoint).toMatchObject({ step: 3, attempt: 1 });
    const resumed = must(await perform(start, { taskId: task.id, version: taken.version }, asSecond));
    must(await perform(recordCheckpoint, { taskId: task.id, version: resumed.version, step: 4, state: { page: 4 } }, asSecond));

    await signIn(page, SARA, `/tasks/${task.id}`);
    // Before the first claim, then one region per attempt.
    await expect(page.getByTestId("attempt")).toHaveCount(3);
    const one = page.getByRole("region", { name: "Attempt 1", exact: true });
    const two = page.getByRole("region", { name: "Attempt 2", exact: true });
    await expect(one.getByTestId("attempt-steps")).toHaveText("· steps 1–3");
    await expect(two.getByTestId("attempt-steps")).toHaveText("· step 4");
    await expect(one.getByTestId("checkpoint-step")).toHaveText(["step 1", "step 2", "step 3"]);
    await expect(two.getByTestId("checkpoint-step")).toHaveText(["step 4"]);
    await expect(two.getByRole("heading")).toContainText(second.name);
    await expect(page.getByTestId("checkpoint")).toContainText(`Latest checkpoint: step 4 of attempt 2, by ${second.name}`);
    // Nothing runs off the side at a phone's width.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await one.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `/tmp/h53a-checkpoints-${width}.png`, fullPage: true });
  });
}
