import { readFileSync } from "node:fs";
import path from "node:path";
import type { APIRequestContext, Page } from "@playwright/test";
import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { createAgentToken } from "../lib/auth/tokens";
import { perform, start } from "../lib/tasks";
import type { Task } from "../lib/tasks/core/types";
import { AMAL, BILAL, SARA } from "./people";
import { expect, live, pageAs, readmeScreenshot, test } from "./fixtures";
import { claimAs, escalated, makeTask, must } from "./seed";

// Races between people, agents working over the HTTP API while people watch, the
// supervisor guard on server actions called by hand, and the history page against the API.

interface ApiTask {
  id: string;
  version: number;
  status: string;
  owner: { id: string; name: string; kind: string } | null;
}

/** An agent with its own bearer token, calling the API from a request context without cookies. */
async function agentFor(db: Db, request: APIRequestContext, queue: string) {
  const name = `robot-${queue}-${Math.random().toString(36).slice(2, 6)}`;
  const { token } = await createAgentToken(db, { name, role: "agent" });
  const headers = { Authorization: `Bearer ${token}` };
  const call = async (pathname: string, data: unknown, expected = 200): Promise<ApiTask> => {
    const response = await request.post(`/api/v1${pathname}`, { headers, data });
    expect(response.status(), `${pathname}: ${await response.text()}`).toBe(expected);
    return ((await response.json()) as { task: ApiTask }).task;
  };
  return { name, headers, call };
}

async function rowOf(db: Db, id: string) {
  const [row] = await db.execute<{ status: string; version: number; owner_id: string | null; failure_count: number; events: number }>(
    sql`SELECT status, version, owner_id::text AS owner_id, failure_count,
               (SELECT count(*)::int FROM task_events e WHERE e.task_id = t.id) AS events
          FROM tasks t WHERE id = ${id}::bigint`,
  );
  return row!;
}

/** A marker that a reload or a navigation would wipe: proves "without a reload". */
async function markDocument(page: Page) {
  await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
}
async function sameDocument(page: Page) {
  return page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true);
}

/** The id of a server action, from the manifest of the build the e2e server runs (global-setup builds into ./.next). */
function serverActionId(exportedName: string): string {
  const manifest = JSON.parse(readFileSync(path.resolve(".next/server/server-reference-manifest.json"), "utf8")) as {
    node: Record<string, { exportedName?: string; filename?: string }>;
  };
  const ids = Object.entries(manifest.node)
    .filter(([, entry]) => entry.exportedName === exportedName)
    .map(([id]) => id);
  expect(ids, `server action ${exportedName} in the manifest`).toHaveLength(1);
  return ids[0]!;
}

test.describe("two people race for one task", () => {
  test("both press Claim at once: one owns it, the other is told who, without a reload", async ({ browser, db, queue, actorOf }) => {
    const title = `Reply to the tenant ${queue}`;
    const task = await makeTask(db, await actorOf(SARA), { title, queue });
    const amal = await pageAs(browser, AMAL, `/?queue=${queue}`);
    const bilal = await pageAs(browser, BILAL, `/?queue=${queue}`);
    await Promise.all([live(amal), live(bilal)]);
    await Promise.all([markDocument(amal), markDocument(bilal)]);

    const claimOn = (page: Page) =>
      page.getByRole("region", { name: "Queued" }).getByRole("article", { name: title }).getByRole("button", { name: "Claim" });
    await expect(claimOn(amal)).toBeEnabled();
    await expect(claimOn(bilal)).toBeEnabled();
    await Promise.all([claimOn(amal).click(), claimOn(bilal).click()]);

    // Exactly one of them owns the row.
    await expect.poll(async () => (await rowOf(db, task.id)).status).toBe("claimed");
    const row = await rowOf(db, task.id);
    const [amalActor, bilalActor] = [await actorOf(AMAL), await actorOf(BILAL)];
    expect([amalActor.id, bilalActor.id]).toContain(row.owner_id);
    expect(row.version).toBe(task.version + 1);
    const [winner, loser, loserPage] =
      row.owner_id === amalActor.id ? [AMAL, BILAL, bilal] : [BILAL, AMAL, amal];
    const winnerPage = loserPage === amal ? bilal : amal;

    // The one who lost is told, in words, who got there first — on the page as it is.
    await expect(loserPage.getByRole("alert").filter({ hasText: "first" })).toContainText(
      new RegExp(`^${winner.name} claimed this first — \\d\\d:\\d\\d:\\d\\d\\.`),
    );
    for (const page of [loserPage, winnerPage]) {
      const claimed = page.getByRole("region", { name: "Claimed" }).getByRole("article", { name: title });
      await expect(claimed.getByTestId("owner")).toContainText(winner.name);
      await expect(claimed.getByTestId("owner")).not.toContainText(loser.name);
      await expect(page.getByRole("region", { name: "Queued" }).getByRole("article", { name: title })).toHaveCount(0);
      expect(await sameDocument(page)).toBe(true);
    }
    // The winner is not told off.
    await expect(winnerPage.getByRole("alert").filter({ hasText: "claimed this first" })).toHaveCount(0);
    await amal.context().close();
    await bilal.context().close();
  });
});

test.describe("agents over the API, seen live", () => {
  test("Bilal's open board shows an agent's new task, then the agent's claim, without a reload", async ({ browser, db, queue, request }) => {
    const agent = await agentFor(db, request, queue);
    const bilal = await pageAs(browser, BILAL, `/?queue=${queue}`);
    await live(bilal);
    await markDocument(bilal);

    const title = `Fetch the weather feed ${queue}`;
    const created = await agent.call("/tasks", { title, queue, priority: 2 }, 201);
    expect(created.status).toBe("queued");
    const queued = bilal.getByRole("region", { name: "Queued" }).getByRole("article", { name: title });
    await expect(queued).toBeVisible();
    await expect(queued.getByTestId("owner")).toHaveText("nobody");

    const claimed = await agent.call("/claims", { queue });
    expect(claimed).toMatchObject({ id: created.id, status: "claimed", owner: { name: agent.name, kind: "agent" } });
    const held = bilal.getByRole("region", { name: "Claimed" }).getByRole("article", { name: title });
    await expect(held.getByTestId("owner")).toContainText(agent.name);
    await expect(held.getByRole("button", { name: "Claim" })).toHaveCount(0);
    await expect(queued).toHaveCount(0);
    expect(await sameDocument(bilal)).toBe(true);
    await bilal.context().close();
  });

  test("three failures over the API reach Sara's open inbox; her requeue is back on a staff board, live", async ({ browser, db, queue, request }) => {
    const agent = await agentFor(db, request, queue);
    const title = `Import the gas readings ${queue}`;
    let task = await agent.call("/tasks", { title, queue }, 201);

    const sara = await pageAs(browser, SARA, `/inbox?queue=${queue}`);
    const amal = await pageAs(browser, AMAL, `/?queue=${queue}`);
    await Promise.all([live(sara), live(amal)]);
    await Promise.all([markDocument(sara), markDocument(amal)]);
    await expect(sara.getByText(`Nothing is escalated in ${queue}.`)).toBeVisible();
    const onBoard = (status: "Queued" | "Claimed") => amal.getByRole("region", { name: status }).getByRole("article", { name: title });
    await expect(onBoard("Queued")).toBeVisible();

    const reasons = ["Feed answered 500", "Row 3: meter id unknown", "Timed out after 30 s"];
    for (const reason of reasons) {
      task = await agent.call(`/tasks/${task.id}/claim`, { version: task.version });
      expect(task.status).toBe("claimed");
      task = await agent.call(`/tasks/${task.id}/fail`, { version: task.version, reason });
    }
    expect(task.status).toBe("escalated");

    const card = sara.getByRole("article", { name: title });
    await expect(card).toBeVisible();
    await expect(card.getByTestId("last-reason")).toHaveText(reasons.at(-1)!);
    await card.getByRole("button", { name: `Details of ${title}` }).click();
    const failures = card.getByRole("list", { name: `Failure reasons of ${title}` }).getByRole("listitem");
    await expect(failures).toHaveCount(3);
    for (const [i, reason] of reasons.entries()) {
      await expect(failures.nth(i).getByTestId("failure-reason")).toHaveText(reason);
      await expect(failures.nth(i)).toContainText(agent.name);
    }
    await expect(onBoard("Queued")).toHaveCount(0); // escalated: off the work columns
    await readmeScreenshot(sara, "inbox", test.info());

    await card.getByRole("button", { name: `Requeue ${title}` }).click();
    await expect(card).toBeHidden();
    await expect(onBoard("Queued")).toBeVisible();
    await expect(onBoard("Queued").getByTestId("owner")).toHaveText("nobody");
    await expect(onBoard("Queued").getByRole("button", { name: "Claim" })).toBeEnabled();
    expect(await rowOf(db, task.id)).toMatchObject({ status: "queued", failure_count: 0, owner_id: null });
    expect(await sameDocument(sara)).toBe(true);
    expect(await sameDocument(amal)).toBe(true);
    await sara.context().close();
    await amal.context().close();
  });
});

test.describe("the supervisor guard on server actions", () => {
  test("requeueAction posted by hand: refused for staff with nothing changed, honoured for a supervisor", async ({ browser, db, queue, actorOf, baseURL }) => {
    const title = `Parse the invoices ${queue}`;
    const task = await escalated(db, await actorOf(SARA), { title, queue }, ["a", "b", "c"]);
    const before = await rowOf(db, task.id);
    const actionId = serverActionId("requeueAction");
    // As the browser calls it: POST to a page path, the action id in Next-Action, the arguments as JSON.
    const callAs = (page: Page) =>
      page.request.post("/", {
        headers: { "Next-Action": actionId, "Content-Type": "text/plain;charset=UTF-8", Origin: baseURL!, Accept: "text/x-component" },
        data: JSON.stringify([{ taskId: task.id, version: task.version }]),
      });

    const amal = await pageAs(browser, AMAL, "/");
    const refused = await callAs(amal);
    const refusal = await refused.text();
    expect(refusal).not.toMatch(/"ok":\s*true/);
    expect(refusal).toContain('"forbidden"');
    expect(await rowOf(db, task.id)).toEqual(before);

    // The same call from Sara's session does requeue it: the call shape is right, so the refusal above is the guard's.
    const sara = await pageAs(browser, SARA, "/inbox");
    const honoured = await callAs(sara);
    expect(honoured.status()).toBe(200);
    expect(await honoured.text()).toMatch(/"ok":\s*true/);
    expect(await rowOf(db, task.id)).toMatchObject({ status: "queued", failure_count: 0, version: before.version + 1 });
    await amal.context().close();
    await sara.context().close();
  });
});

test.describe("the history page and the API agree", () => {
  test("/tasks/{id} lists the events of GET /api/v1/tasks/{id}/events, in order, with their actors", async ({ browser, db, queue, request, actorOf }) => {
    const agent = await agentFor(db, request, queue);
    const title = `Rotate the backups ${queue}`;
    let task = await agent.call("/tasks", { title, queue, description: "Weekly: keep four." }, 201);
    task = await agent.call(`/tasks/${task.id}/claim`, { version: task.version });
    task = await agent.call(`/tasks/${task.id}/start`, { version: task.version });
    task = await agent.call(`/tasks/${task.id}/heartbeat`, { version: task.version, progress: { copied: 3 } });
    task = await agent.call(`/tasks/${task.id}/side-effects`, { version: task.version, description: "Deleted the oldest backup" });
    task = await agent.call(`/tasks/${task.id}/fail`, { version: task.version, reason: "Disk full" });
    const amal = await actorOf(AMAL);
    const reclaimed = await claimAs(db, amal, task as unknown as Task);
    const engineTask = must(await perform(start, { taskId: task.id, version: reclaimed.version, confirmCheck: true }, { db, actor: amal }));
    expect(engineTask.status).toBe("started");

    const response = await request.get(`/api/v1/tasks/${task.id}/events?limit=100`, { headers: agent.headers });
    expect(response.status()).toBe(200);
    const { events } = (await response.json()) as { events: { type: string; actor: { name: string; kind: string } }[] };
    expect(events.map((e) => e.type)).toEqual(["created", "claimed", "started", "heartbeat", "side_effect", "failed", "claimed", "check_confirmed", "started"]);

    const page = await pageAs(browser, AMAL, `/tasks/${task.id}`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);
    const shown = page.getByRole("region", { name: "History" }).getByTestId("event");
    await expect(shown).toHaveCount(events.length);
    for (const [i, event] of events.entries()) {
      await expect(shown.nth(i), `event ${i}`).toHaveAttribute("data-type", event.type);
      await expect(shown.nth(i), `event ${i}`).toContainText(event.actor.name);
    }
    await readmeScreenshot(page, "task-history", test.info());
    await page.context().close();
  });
});
