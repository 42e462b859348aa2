import type { Page } from "@playwright/test";
import { sql } from "drizzle-orm";
import { perform } from "../lib/tasks";
import { editTask } from "../lib/tasks/authoring/edit";
import { AMAL, BILAL, SARA } from "./people";
import { expect, live, pageAs, test } from "./fixtures";
import { makeTask, must } from "./seed";

// Issue 15 item 2 as people do it: edit a task on its page, discuss it in comments, and see
// both arrive live in another person's browser; a stale edit is told in a sentence.

const heading = (page: Page) => page.getByRole("heading", { level: 1 });
const field = (page: Page, name: string) => page.getByRole("textbox", { name, exact: true });

test.describe("editing and discussing a task", () => {
  test("Amal edits and comments; Bilal, watching, sees the new title and the comment without a reload", async ({ browser, db, queue, actorOf }) => {
    const task = await makeTask(db, await actorOf(AMAL), { title: `Inspectoins ${queue}`, queue, description: "site 7" });
    const amal = await pageAs(browser, AMAL, `/tasks/${task.id}`);
    const bilal = await pageAs(browser, BILAL, `/tasks/${task.id}`);
    await live(bilal);
    await bilal.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
    // Bilal neither created nor held it: no edit form offered.
    await expect(bilal.getByRole("button", { name: "Edit", exact: true })).toHaveCount(0);

    await amal.getByRole("button", { name: "Edit", exact: true }).click();
    await expect(field(amal, "Title")).toBeFocused();
    await field(amal, "Payload (JSON object)").fill("{site: 7");
    await amal.getByRole("button", { name: "Save changes" }).click();
    // Said on the field, in the app's words (no browser bubble), with the form's summary.
    await expect(field(amal, "Payload (JSON object)")).toHaveAccessibleDescription(/The payload isn't valid JSON/);
    await expect(field(amal, "Payload (JSON object)")).toHaveAttribute("aria-invalid", "true");
    await expect(amal.getByTestId("edit-problems")).toHaveText("One field needs fixing: see the field marked above.");

    await field(amal, "Title").fill(`Inspections ${queue}`);
    await field(amal, "Priority").fill("5");
    await field(amal, "Payload (JSON object)").fill('{"site": 7}');
    await amal.getByRole("button", { name: "Save changes" }).click();
    await expect(heading(amal)).toHaveText(`Inspections ${queue}`);
    await expect(amal.getByTestId("edit-task")).toHaveCount(0);

    await expect(heading(bilal)).toHaveText(`Inspections ${queue}`);
    const edited = bilal.getByTestId("event").filter({ hasText: "edited the title, priority and payload" });
    await expect(edited.getByTestId("edit-changes")).toContainText(`title: “Inspectoins ${queue}” → “Inspections ${queue}”`);
    await expect(bilal.getByTestId("payload")).toContainText('"site": 7');

    await field(amal, "Comment").fill("x".repeat(4001));
    await amal.getByRole("button", { name: "Post comment" }).click();
    await expect(field(amal, "Comment")).toHaveAccessibleDescription(/That's 4,001 characters; a comment holds at most 4,000/);
    await expect(amal.getByRole("form", { name: "Add a comment" }).getByTestId("char-count")).toContainText("4,001 / 4,000: 1 too many");
    await field(amal, "Comment").fill("Gate 2 is locked; ask the caretaker.");
    await amal.getByRole("button", { name: "Post comment" }).click();
    await expect(amal.getByTestId("comment-body")).toHaveText("Gate 2 is locked; ask the caretaker.");

    const comment = bilal.getByTestId("event").filter({ has: bilal.getByTestId("comment-body") });
    await expect(comment).toContainText(/Amal.*commented/);
    await expect(comment.getByTestId("comment-body")).toHaveText("Gate 2 is locked; ask the caretaker.");
    // Bilal answers; Amal sees it live too.
    await field(bilal, "Comment").fill("Caretaker is in at 9.");
    await bilal.getByRole("button", { name: "Post comment" }).click();
    await expect(amal.getByTestId("comment-body").filter({ hasText: "Caretaker is in at 9." })).toBeVisible();
    expect(await bilal.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    await amal.context().close();
    await bilal.context().close();
  });

  test("a stale edit says who changed the task and what it is now; saving again applies it", async ({ browser, db, queue, actorOf }) => {
    const task = await makeTask(db, await actorOf(AMAL), { title: `Order paper ${queue}`, queue });
    const amal = await pageAs(browser, AMAL, `/tasks/${task.id}`);
    // Amal's tab loses its event stream, so her form is left behind…
    await amal.context().route("**/api/v1/events**", (route) => route.abort());
    await amal.reload();
    await amal.getByRole("button", { name: "Edit", exact: true }).click();
    await field(amal, "Title").fill(`Order A4 paper ${queue}`);
    // …while Sara edits the task.
    must(await perform(editTask, { taskId: task.id, version: 1, title: `Order paper and toner ${queue}`, priority: 2 }, { db, actor: await actorOf(SARA), standing: "supervisor" }));

    await amal.getByRole("button", { name: "Save changes" }).click();
    const conflict = amal.getByTestId("edit-conflict");
    await expect(conflict).toContainText(`Sara changed this task while you were editing: it is now titled “Order paper and toner ${queue}”, priority 2, queued.`);
    await expect(heading(amal)).toHaveText(`Order paper and toner ${queue}`);
    await expect(field(amal, "Title")).toHaveValue(`Order A4 paper ${queue}`);

    await amal.getByRole("button", { name: "Save changes" }).click();
    await expect(heading(amal)).toHaveText(`Order A4 paper ${queue}`);
    await amal.context().close();
  });
  test("the lost update: Sara's priority survives Amal's stale save of the title (two browsers)", async ({ browser, db, queue, actorOf }) => {
    const task = await makeTask(db, await actorOf(AMAL), { title: `Book the van ${queue}`, queue, priority: 6 });
    const amal = await pageAs(browser, AMAL, `/tasks/${task.id}`);
    const sara = await pageAs(browser, SARA, `/tasks/${task.id}`);
    await amal.getByRole("button", { name: "Edit", exact: true }).click();
    await field(amal, "Title").fill(`Book the big van ${queue}`);

    // Meanwhile Sara raises the priority 6 → 9 in her own browser.
    await sara.getByRole("button", { name: "Edit", exact: true }).click();
    await field(sara, "Priority").fill("9");
    await sara.getByRole("button", { name: "Save changes" }).click();
    await expect(sara.getByTestId("edit-task")).toHaveCount(0);

    // Amal's save meets the conflict; the field she did not touch now holds Sara's value.
    await amal.getByRole("button", { name: "Save changes" }).click();
    await expect(amal.getByTestId("edit-conflict")).toContainText("Sara changed this task while you were editing");
    await expect(field(amal, "Priority")).toHaveValue("9");
    await expect(field(amal, "Title")).toHaveValue(`Book the big van ${queue}`);
    await expect(amal.getByTestId("edit-clash-priority")).toHaveCount(0);

    await amal.getByRole("button", { name: "Save changes" }).click();
    await expect(amal.getByTestId("edit-task")).toHaveCount(0);
    await expect(heading(amal)).toHaveText(`Book the big van ${queue}`);
    await expect(heading(sara)).toHaveText(`Book the big van ${queue}`);
    const [row] = await db.execute<{ title: string; priority: number }>(sql`SELECT title, priority FROM tasks WHERE id = ${task.id}::bigint`);
    expect(row).toEqual({ title: `Book the big van ${queue}`, priority: 9 });
    // Amal's edit recorded only the title: nothing of hers touched the priority.
    await expect(sara.getByTestId("event").filter({ hasText: "Amal" }).filter({ hasText: "edited the title" })).toHaveCount(1);
    await expect(sara.getByTestId("event").filter({ hasText: "edited the title and priority" })).toHaveCount(0);
    await amal.context().close();
    await sara.context().close();
  });

  test("a field both changed asks for a decision; Use theirs puts the other value back", async ({ browser, db, queue, actorOf }) => {
    const task = await makeTask(db, await actorOf(AMAL), { title: `Paint the fence ${queue}`, queue, priority: 1 });
    const amal = await pageAs(browser, AMAL, `/tasks/${task.id}`);
    await amal.getByRole("button", { name: "Edit", exact: true }).click();
    await field(amal, "Priority").fill("4");
    must(await perform(editTask, { taskId: task.id, version: 1, priority: 7 }, { db, actor: await actorOf(SARA), standing: "supervisor" }));
    await amal.getByRole("button", { name: "Save changes" }).click();
    const clash = amal.getByTestId("edit-clash-priority");
    await expect(clash).toContainText("You and Sara both changed the priority: theirs is “7”, yours “4”");
    await expect(field(amal, "Priority")).toHaveValue("4");
    await clash.getByRole("button", { name: "Use theirs" }).click();
    await expect(field(amal, "Priority")).toHaveValue("7");
    await expect(clash).toHaveCount(0);
    await amal.context().close();
  });
});
