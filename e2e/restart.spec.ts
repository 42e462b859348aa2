import type { APIRequestContext, Browser, Page } from "@playwright/test";
import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { createAgentToken } from "../lib/auth/tokens";
import { AMAL, BILAL } from "./people";
import { aloneWithTheDatabase, expect, live, pageAs, test } from "./fixtures";
import { pgCtl } from "./pg-ctl";

// Issue 4: an open board in two browsers, an agent working over the API, and a PostgreSQL
// restart in the middle. The boards (and a task page) end showing what the database holds,
// without a reload: the server's LISTEN connection reconnects and catches up, the browsers'
// event streams resume by Last-Event-ID.

interface ApiTask {
  id: string;
  version: number;
  status: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * An agent with its own bearer token. Calls retry — bounded — while the server answers
 * 502/503/504 or the request fails: the database is away. A refused write never committed,
 * so a retried create makes one task.
 */
async function agentFor(db: Db, request: APIRequestContext, queue: string) {
  const name = `robot-${queue}-${Math.random().toString(36).slice(2, 6)}`;
  const { token } = await createAgentToken(db, { name, role: "agent" });
  const headers = { Authorization: `Bearer ${token}` };
  let retries = 0;
  const call = async (pathname: string, data: unknown, expected = 200): Promise<ApiTask> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const response = await request.post(`/api/v1${pathname}`, { headers, data, timeout: 10_000 }).catch(() => null);
      const status = response?.status() ?? 0;
      if ((status === 0 || status === 502 || status === 503 || status === 504) && Date.now() < deadline) {
        retries++;
        await sleep(250);
        continue;
      }
      expect(status, `${pathname}: ${response ? await response.text() : "no response"}`).toBe(expected);
      return ((await response!.json()) as { task: ApiTask }).task;
    }
  };
  return { name, headers, call, retries: () => retries };
}

async function rowsOf(db: Db, queue: string) {
  return db.execute<{ id: string; status: string }>(sql`SELECT id::text AS id, status FROM tasks WHERE queue = ${queue} ORDER BY id`);
}

async function eventTypesOf(db: Db, id: string) {
  const rows = await db.execute<{ type: string }>(sql`SELECT type FROM task_events WHERE task_id = ${id}::bigint ORDER BY id`);
  return rows.map((r) => r.type);
}

/** Every card on the board, as task id → the status it is shown in. */
async function boardState(page: Page): Promise<Record<string, string>> {
  return page.evaluate(() => {
    const state: Record<string, string> = {};
    for (const column of document.querySelectorAll<HTMLElement>('[data-testid^="column-"]')) {
      const status = column.dataset.testid!.slice("column-".length);
      for (const card of column.querySelectorAll<HTMLElement>('article[data-testid^="task-"]')) {
        const id = card.dataset.testid!.slice("task-".length);
        // A card is shown in its column, and says its status: both must agree.
        state[id] = card.dataset.status === status ? status : `${status}≠${card.dataset.status}`;
      }
    }
    return state;
  });
}

async function markDocument(page: Page) {
  await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
}
async function sameDocument(page: Page) {
  return page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true);
}

test.describe("a PostgreSQL restart under open boards", () => {
  test.skip(!!process.env.TEST_DATABASE_URL, "TEST_DATABASE_URL is a shared server: this test restarts only the embedded cluster it started");
  test.skip(!process.env.E2E_PG_DATA_DIR, "global-setup.ts did not start an embedded cluster (no E2E_PG_DATA_DIR) to restart");

  test("both boards and a task page catch up with the database, without a reload", async ({ browser, db, queue, request }, testInfo) => {
    // Waits for the other worker's test to end (fixtures.ts): the restart would break it.
    test.setTimeout(180_000);
    await aloneWithTheDatabase(testInfo, () => restartUnderOpenBoards(browser, db, queue, request));
  });
});

/** Two boards and a task page open, an agent working over the API, PostgreSQL stopped and started in between. */
async function restartUnderOpenBoards(browser: Browser, db: Db, queue: string, request: APIRequestContext) {
  const dataDir = process.env.E2E_PG_DATA_DIR!;
  const agent = await agentFor(db, request, queue);
  const title = (n: string) => `${n} ${queue}`;

  // Before: a few tasks, one claimed and started by the agent.
  let a = await agent.call("/tasks", { title: title("Archive the logs"), queue, priority: 3 }, 201);
  let b = await agent.call("/tasks", { title: title("Rebuild the index"), queue, priority: 2 }, 201);
  let c = await agent.call("/tasks", { title: title("Send the reminders"), queue, priority: 1 }, 201);
  const d = await agent.call("/tasks", { title: title("Prune the cache"), queue }, 201);

  const amal = await pageAs(browser, AMAL, `/?queue=${queue}`);
  const bilal = await pageAs(browser, BILAL, `/?queue=${queue}`);
  const history = await amal.context().newPage();
  await history.goto(`/tasks/${a.id}`);
  await expect(history.getByRole("heading", { level: 1 })).toHaveText(title("Archive the logs"));
  const pages = [amal, bilal, history];
  await Promise.all(pages.map(live));
  await Promise.all(pages.map(markDocument));

  // The agent works while everyone watches: seen live before the restart.
  a = await agent.call(`/tasks/${a.id}/claim`, { version: a.version });
  a = await agent.call(`/tasks/${a.id}/start`, { version: a.version });
  for (const page of [amal, bilal]) {
    await expect(page.getByRole("region", { name: "Started" }).getByRole("article", { name: title("Archive the logs") })).toBeVisible();
  }
  await expect(history.getByTestId("task-status")).toHaveAttribute("data-status", "started");

  // PostgreSQL goes away (fast shutdown: every connection is cut) and stays away a moment.
  pgCtl(dataDir, ["stop", "-m", "fast"]);
  const down = Date.now();
  try {
    await expect
      .poll(async () => (await request.get("/api/v1/health", { timeout: 5_000 }).catch(() => null))?.status() ?? 0, { timeout: 10_000 })
      .toBe(503);
    // The API refuses writes cleanly meanwhile: 503, nothing half-done.
    const refused = await request.post(`/api/v1/tasks/${b.id}/claim`, { headers: agent.headers, data: { version: b.version }, timeout: 10_000 });
    expect(refused.status(), await refused.text()).toBe(503);
    await sleep(1_500);
  } finally {
    // Back, without waiting: the agent's first calls may still meet a database starting up.
    // In `finally`, so a failed check above never leaves the suite's database down.
    pgCtl(dataDir, ["start"], { wait: false });
  }
  const restarted = Date.now();
  console.log(`[restart] PostgreSQL was stopped for ${restarted - down} ms`);

  // After: more work over the API, retried while the server finds its database again.
  a = await agent.call(`/tasks/${a.id}/complete`, { version: a.version });
  const back = Date.now(); // the database took a write again
  console.log(`[restart] the first write after the restart succeeded ${back - restarted} ms after pg_ctl start (${agent.retries()} retried calls)`);
  b = await agent.call(`/tasks/${b.id}/claim`, { version: b.version });
  c = await agent.call(`/tasks/${c.id}/claim`, { version: c.version });
  c = await agent.call(`/tasks/${c.id}/start`, { version: c.version });
  const e = await agent.call("/tasks", { title: title("Rotate the keys"), queue }, 201);
  const workDone = Date.now();
  console.log(`[restart] the agent's work after the restart took ${workDone - back} ms more`);
  expect([a.status, b.status, c.status, d.status, e.status]).toEqual(["done", "claimed", "started", "queued", "queued"]);

  // Both boards reach the final states, live (bounded).
  const expected: Record<string, string> = { [a.id]: "done", [b.id]: "claimed", [c.id]: "started", [d.id]: "queued", [e.id]: "queued" };
  const caughtUp: Record<string, number> = {};
  await Promise.all(
    [
      ["Amal", amal],
      ["Bilal", bilal],
    ].map(async ([who, page]) => {
      await expect.poll(() => boardState(page as Page), { timeout: 30_000, intervals: [100] }).toEqual(expected);
      caughtUp[who as string] = Date.now();
    }),
  );
  for (const who of ["Amal", "Bilal"]) {
    const at = caughtUp[who]!;
    console.log(`[restart] ${who}'s board caught up ${at - back} ms after PostgreSQL took a write again (${at - workDone} ms after the agent's last call)`);
  }

  // Every card shows the status the database holds, and every task of the queue has a card.
  const rows = await rowsOf(db, queue);
  const inDatabase = Object.fromEntries(rows.map((r) => [r.id, r.status]));
  expect(inDatabase).toEqual(expected);
  for (const page of [amal, bilal]) expect(await boardState(page)).toEqual(inDatabase);

  // The task page opened before the restart shows the history of task_events, in order.
  const types = await eventTypesOf(db, a.id);
  expect(types).toEqual(["created", "claimed", "started", "completed"]);
  await expect(history.getByTestId("task-status")).toHaveAttribute("data-status", "done", { timeout: 30_000 });
  const shown = history.getByRole("region", { name: "History" }).getByTestId("event");
  await expect(shown).toHaveCount(types.length, { timeout: 30_000 });
  for (const [i, type] of types.entries()) await expect(shown.nth(i), `event ${i}`).toHaveAttribute("data-type", type);
  await expect(shown.first()).toContainText(agent.name);
  console.log(`[restart] the task page showed all ${types.length} events ${Date.now() - back} ms after PostgreSQL took a write again`);

  // All three are still the documents opened before the restart, and live again.
  for (const page of pages) {
    expect(await sameDocument(page)).toBe(true);
    await live(page);
  }
  await amal.context().close();
  await bilal.context().close();
}
