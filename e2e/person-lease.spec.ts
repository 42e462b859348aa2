import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { createUser } from "../lib/auth/users";
import { claim, createActor, perform, setQueueSettings, type Task } from "../lib/tasks";
import type { Db } from "../db/client";
import { SARA, type Person } from "./people";
import { expect, live, signIn, test } from "./fixtures";
import { claimAs, makeTask, must } from "./seed";

// A person's holding follows the person (docs/attention.md, "A person's lease"). Leases run out
// on the server's clock (the database's) as they would, never moved in SQL: the queues have
// short leases. The browser's clock is Playwright's (page.clock), paused: each minute the
// person is away is one fastForward, which fires a due timer once, as Chromium does for a
// background tab's throttled timers.

const LEASE = 12;

async function person(db: Db) {
  const tag = randomBytes(3).toString("hex");
  const dana = { email: `dana-${tag}@example.com`, name: `Dana ${tag}`, role: "staff" as const, password: `dana-password-${tag}` };
  return { ...dana, account: await createUser(db, dana) };
}

const leaseOf = async (db: Db, task: Task) => (await db.execute<{ left: number; owner: string | null; status: string }>(sql`
  SELECT extract(epoch FROM lease_until - now())::float AS left, owner_id::text AS owner, status::text AS status FROM tasks WHERE id = ${task.id}::bigint`))[0]!;

test("Dana, idle in a background tab for 10 minutes, still holds her task while its short lease runs out again and again", async ({ page, db, queue, actorOf }) => {
  test.setTimeout(180_000);
  const dana = await person(db);
  const sara = await actorOf(SARA);
  must(await perform(setQueueSettings, { queue, leaseSeconds: LEASE }, { db, actor: sara }));
  const task = await claimAs(db, dana.account.actor, await makeTask(db, sara, { title: `Tenancy pets ${queue}`, queue }));

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
  // From here the tab's time moves only a minute at a time: no timer fires in between.
  await page.clock.pauseAt(Date.now() + 1000);

  for (let minute = 1; minute <= 10; minute++) {
    // The lease runs down on the server's clock until a renewal is due (a third of it gone)…
    await expect.poll(async () => (await leaseOf(db, task)).left, { message: `minute ${minute}: due`, timeout: LEASE * 1000 }).toBeLessThan((LEASE * 2) / 3 - 0.5);
    const before = (await leaseOf(db, task)).left;
    // …and a minute passes for the background tab: its one throttled tick renews.
    await page.clock.fastForward(60_000);
    await expect.poll(async () => (await leaseOf(db, task)).left, { message: `minute ${minute}: renewed` }).toBeGreaterThan(before + 1);
  }
  expect(await leaseOf(db, task)).toMatchObject({ owner: dana.account.actor.id, status: "claimed" });
  const [lapses] = await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM task_events WHERE task_id = ${task.id}::bigint AND type = 'lease_expired'`);
  expect(lapses!.n).toBe(0);
});

test("a person's lapsed task is not taken by an agent inside the grace, and is after it", async ({ page, db, queue, actorOf }) => {
  test.setTimeout(120_000);
  const GRACE = 8;
  const dana = await person(db);
  const sara = await actorOf(SARA);
  // personIdleSeconds 0: presence never renews here, so Dana's lease runs out with her page open.
  must(await perform(setQueueSettings, { queue, leaseSeconds: 5, personIdleSeconds: 0, personGraceSeconds: GRACE }, { db, actor: sara }));
  const task = await claimAs(db, dana.account.actor, await makeTask(db, sara, { title: `Grace ${queue}`, queue }));
  const agent = await createActor(db, "agent", `bot-${randomBytes(2).toString("hex")}`);
  await signIn(page, dana as unknown as Person, `/tasks/${task.id}`);
  await live(page);

  const agentClaims = () => perform(claim, { taskId: task.id, version: task.version }, { db, actor: agent });
  await expect.poll(async () => (await leaseOf(db, task)).left, { timeout: 15_000 }).toBeLessThan(0);
  const inside = await agentClaims();
  expect(inside.ok || inside.error).toMatchObject({ code: "not_ready", message: expect.stringMatching(/grace|person/i) });
  expect(await leaseOf(db, task)).toMatchObject({ owner: dana.account.actor.id });

  await expect.poll(async () => (await agentClaims()).ok, { timeout: (GRACE + 5) * 1000, intervals: [1000] }).toBe(true);
  const taken = await leaseOf(db, task);
  expect(taken).toMatchObject({ owner: agent.id, status: "claimed" });
  // Taken no sooner than the grace after the lapse (the lease end the claim gave her).
  const [claimed] = await db.execute<{ at: string }>(sql`
    SELECT max(created_at)::text AS at FROM task_events WHERE task_id = ${task.id}::bigint AND type = 'claimed'`);
  expect(new Date(claimed!.at).getTime()).toBeGreaterThanOrEqual(task.leaseUntil!.getTime() + GRACE * 1000);
});
