import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { claim, createActor, perform, start } from "../lib/tasks";
import { makeQueue } from "../test/queues";
import { SARA } from "./people";
import { expect, signIn, test } from "./fixtures";
import { makeTask, must } from "./seed";

// Issue 27 item 2: states that are true. An agent claims and starts a task on an
// agents-only queue with a short lease, then dies (sends nothing more). Nothing changes the
// task when the lease runs out — expiry is lazy — yet within one lease the card, the fleet and
// the inbox say it lapsed, and the board counts it; the server's lapse clock announces it
// (one `lapsed` fact, no state change), which the history shows. The lease runs out on its own.

const LEASE = 20;

test("a killed agent's task shows as lapsed on the card, the fleet and in the inbox within one lease", async ({ page, db, actorOf }) => {
  const queue = await makeQueue(db, `e2e-lapse-${randomBytes(4).toString("hex")}`, { leaseSeconds: LEASE, claimants: "agents" });
  const sara = await actorOf(SARA);
  const agent = await createActor(db, "agent", `crawler-${queue.slice(-8)}`);
  const task = await makeTask(db, sara, { title: `Crawl the archive ${queue}`, queue });
  const as = { db, actor: agent, instance: "host-9:4242" };
  const claimed = must(await perform(claim, { taskId: task.id, version: task.version }, as));
  const started = must(await perform(start, { taskId: task.id, version: claimed.version }, as));
  const lapsesAt = started.leaseUntil!.getTime();
  // …and the agent is killed: no heartbeat, no release, nothing.

  await signIn(page, SARA, `/?queue=${queue}`);
  const card = page.getByRole("article", { name: `Crawl the archive ${queue}` });
  const fleet = await page.context().newPage();
  await fleet.goto("/agents");
  const agentCard = fleet.getByRole("region", { name: `Agent ${agent.name}` });
  const inbox = await page.context().newPage();
  await inbox.goto("/inbox");
  const lapsedRow = inbox.getByTestId(`lapsed-${task.id}`);
  if (Date.now() < lapsesAt - 3000) {
    // While the lease runs, it is live and held, and not in the inbox.
    await expect(agentCard).toContainText("1 live instance");
    await expect(lapsedRow).toHaveCount(0);
    await expect(card.getByTestId("lease")).toHaveText(/left$/);
  }

  const withinOneLease = { timeout: LEASE * 1000 + 5000 };
  await expect(card.getByTestId("lease")).toHaveAttribute("data-lapsed", "true", withinOneLease);
  await expect(page.getByTestId("lapsed-count")).toContainText("lapsed and nobody has taken", withinOneLease);
  await expect(agentCard).toContainText("no live instance", withinOneLease);
  await expect(agentCard.getByTestId("held-lapsed")).toContainText("lapsed");
  await expect(agentCard).toContainText("silent past its lease");
  await expect(lapsedRow).toContainText(`Crawl the archive ${queue}`, withinOneLease);
  await expect(lapsedRow).toContainText(agent.name);
  await expect(lapsedRow).toContainText("lapsed");
  // Within one lease of the lapse itself (the agent's last word was the start).
  expect(Date.now() - lapsesAt).toBeLessThan(LEASE * 1000);

  await page.goto(`/tasks/${task.id}`);
  await expect(page.getByTestId("task-status").getByTestId("lapsed-badge")).toHaveText("lease lapsed");
  // Announced, once: the history says which attempt lapsed and who held it.
  const announced = page.locator('[data-testid="event"][data-type="lapsed"]');
  await expect(announced).toHaveCount(1);
  await expect(announced).toContainText(`lease lapsed (attempt 1, held by ${agent.name})`);
  // The row itself was never touched: the task still reads started, and nothing was written.
  const [row] = await db.execute<{ status: string; version: number }>(sql`SELECT status, version FROM tasks WHERE id = ${task.id}::bigint`);
  expect(row).toEqual({ status: "started", version: started.version });
  await fleet.close();
  await inbox.close();
});
