import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { createUser } from "../lib/auth/users";
import { perform, setQueueSettings } from "../lib/tasks";
import { SARA, type Person } from "./people";
import { expect, live, signIn, test } from "./fixtures";
import { claimAs, makeTask, must } from "./seed";

// A person's holding follows the person (docs/attention.md, "A person's lease"): Dana, on a
// 2-minute queue, leaves the app idle in a background tab for 10 minutes and still holds her
// task. The browser's clock is Playwright's (page.clock): each minute is one fastForward,
// which fires a due timer once, as Chromium does for a background tab's throttled timers; the
// server's time is the database's, so each minute the task's lease is moved a minute back.

test("Dana, idle in a background tab for 10 minutes on a 2-minute queue, still holds her task", async ({ page, db, queue, actorOf }) => {
  test.setTimeout(120_000);
  const tag = randomBytes(3).toString("hex");
  const dana = { email: `dana-${tag}@example.com`, name: `Dana ${tag}`, role: "staff", password: `dana-password-${tag}` };
  const account = await createUser(db, { ...dana, role: "staff" });
  const sara = await actorOf(SARA);
  must(await perform(setQueueSettings, { queue, leaseSeconds: 120 }, { db, actor: sara }));
  const task = await claimAs(db, account.actor, await makeTask(db, sara, { title: `Tenancy pets ${queue}`, queue }));

  await page.clock.install();
  await signIn(page, dana as unknown as Person, "/questions"); // any page of the app: not the board
  await live(page);
  await expect(page.getByTestId("lease-keeper")).toHaveAttribute("data-held", "1");
  // To the background: hidden, and no more use of the page.
  await page.evaluate(() => {
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
    Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
    document.dispatchEvent(new Event("visibilitychange"));
  });

  const lease = async () => (await db.execute<{ left: number; owner: string | null; status: string }>(sql`
    SELECT extract(epoch FROM lease_until - now())::float AS left, owner_id::text AS owner, status::text AS status FROM tasks WHERE id = ${task.id}::bigint`))[0]!;
  for (let minute = 1; minute <= 10; minute++) {
    // A minute passes for the server (the lease comes a minute nearer its end) and for the tab.
    await db.execute(sql`UPDATE task_state SET lease_until = lease_until - interval '60 seconds' WHERE id = ${task.id}::bigint`);
    await db.execute(sql`UPDATE task_lease SET lease_until = lease_until - interval '60 seconds' WHERE id = ${task.id}::bigint`);
    await page.clock.fastForward(60_000);
    // The renewal lands: the lease has more than a minute left again (due renewals give 120 s).
    await expect.poll(async () => (await lease()).left, { message: `minute ${minute}` }).toBeGreaterThan(60);
  }
  expect(await lease()).toMatchObject({ owner: account.actor.id, status: "claimed" });
  const [lapses] = await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM task_events WHERE task_id = ${task.id}::bigint AND type = 'lease_expired'`);
  expect(lapses!.n).toBe(0);
});
