import { eq } from "drizzle-orm";
import { tasks } from "../db/schema";
import { databaseClock } from "../lib/tasks/core/clock";
import { appendEvents } from "../lib/tasks/core/events";
import { taskCheckpoint } from "../lib/tasks/reads/fold";
import { AMAL, SARA } from "./people";
import { expect, signIn, test } from "./fixtures";
import { makeTask } from "./seed";

// A task whose first months went to a file (`events archive`, docs/engine.md "Retiring the
// log"): its page says so before anything else. The fact is written here as the archive
// writes it (the archive itself drops partitions of the shared e2e database, so it runs in
// scripts/cli-events.test.ts instead).

test("a history whose beginning was archived starts with where it went and the file's SHA-256", async ({ page, db, queue, actorOf }) => {
  const sara = await actorOf(SARA);
  const task = await makeTask(db, sara, { title: `Archived history ${queue}`, queue });
  const [row] = await db.select().from(tasks).where(eq(tasks.id, BigInt(task.id)));
  const sha256 = "9f".repeat(32);
  await appendEvents(db, databaseClock, [{
    taskId: BigInt(task.id), queue, type: "events_archived", actorId: sara.id,
    payload: {
      by: "cli", before: "2026-06", months: ["2026-04", "2026-05"], total: 120, events: 7,
      file: "task-events-before-2026-06.jsonl.gz", sha256, task: taskCheckpoint(row!),
    },
  }]);

  await signIn(page, AMAL, `/tasks/${task.id}`);
  const history = page.getByRole("region", { name: "History" });
  const note = history.getByTestId("events-archived");
  await expect(note).toContainText("7 earlier events (before 2026-06) archived to task-events-before-2026-06.jsonl.gz by cli");
  await expect(note).toContainText(`sha256 ${sha256}`);
  // First, above the attempts; and not a second time inside them.
  await expect(history.locator("[data-testid=events-archived] ~ [data-testid=attempt]")).toHaveCount(1);
  await expect(history.getByTestId("attempt").locator("[data-type=events_archived]")).toHaveCount(0);
  await expect(history.getByTestId("attempt")).toContainText("created the task");
});
