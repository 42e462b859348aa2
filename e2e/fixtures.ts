import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { test as base, expect, type Browser, type Page, type TestInfo } from "@playwright/test";
import { eq } from "drizzle-orm";
import { connectDatabase, type Database } from "../db/client";
import { users } from "../db/schema";
import { findActor } from "../lib/tasks/core/actors";
import type { ActorRef } from "../lib/tasks/core/types";
import { makeQueue } from "../test/queues";
import type { Person } from "./people";

/**
 * Signs in through the login page, as a person would, and waits for the page to be live:
 * hydrated (a click before that would do nothing) and its event stream connected.
 */
export async function signIn(page: Page, person: Person, next = "/"): Promise<void> {
  await page.goto(`/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(person.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  // The sign-in is argon2 work and a redirect to a board of every e2e queue's tasks: on a
  // loaded 2-core machine (a CI run of 2026-12-02) that took past the 10 s default once.
  await expect(page.getByTestId("signed-in-as")).toContainText(person.name, { timeout: 30_000 });
  await live(page);
}

/** A new browser context (its own cookies) signed in as the person, on `next`. */
export async function pageAs(browser: Browser, person: Person, next = "/", baseURL = process.env.E2E_BASE_URL): Promise<Page> {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await signIn(page, person, next);
  return page;
}

/** Waits until the tab's event stream is connected, so what follows is seen live. */
export async function live(page: Page): Promise<void> {
  await expect(page.getByTestId("live-status")).toHaveAttribute("data-status", "live");
}

// e2e/restart.spec.ts restarts the embedded PostgreSQL (E2E_PG_DATA_DIR, set by global-setup.ts);
// no other test may run meanwhile, in any worker. Every test holds a share while it runs (a
// file in RUNNING); the restart test raises RESTARTING, then waits until it is the only one.
// Both sides write first and read second, so neither misses the other.
const RUN_DIR = process.env.E2E_PG_DATA_DIR ? path.dirname(process.env.E2E_PG_DATA_DIR) : null;
const RUNNING = RUN_DIR && path.join(RUN_DIR, "running");
const RESTARTING = RUN_DIR && path.join(RUN_DIR, "restarting");
const shareName = (testInfo: TestInfo) => `${process.pid}-${testInfo.testId}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `body` with no other test running, in any worker (see RUNNING above). One such test
 * at a time: RESTARTING is created exclusively, and a test waiting for it steps aside (drops
 * its share) so the one holding it is not left waiting for the waiter.
 */
export async function aloneWithTheDatabase<T>(testInfo: TestInfo, body: () => Promise<T>): Promise<T> {
  if (!RUNNING || !RESTARTING) return body();
  const mine = path.join(RUNNING, shareName(testInfo));
  for (;;) {
    try {
      await fs.writeFile(RESTARTING, shareName(testInfo), { flag: "wx" });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    await fs.rm(mine, { force: true });
    await sleep(200);
  }
  await fs.writeFile(mine, ""); // our share again (the fixture removes it when the test ends)
  try {
    const others = async () => (await fs.readdir(RUNNING)).filter((name) => name !== shareName(testInfo));
    await expect.poll(others, { message: "other tests still running", timeout: 100_000, intervals: [200] }).toEqual([]);
    return await body();
  } finally {
    await fs.rm(RESTARTING, { force: true });
  }
}

export interface Fixtures {
  /** Held while the test runs, so a database restart waits for it (aloneWithTheDatabase). */
  databaseShare: void;
  /** The test's own database connection (the same database the server uses). */
  db: Database["db"];
  /** A queue (made, empty) no other test uses, so parallel tests never see each other's tasks. */
  queue: string;
  /** The actor behind a person's account. */
  actorOf: (person: Person) => Promise<ActorRef>;
}

export const test = base.extend<Fixtures>({
  databaseShare: [
    async ({}, provide, testInfo) => {
      if (!RUNNING || !RESTARTING) return provide();
      await fs.mkdir(RUNNING, { recursive: true });
      const mine = path.join(RUNNING, shareName(testInfo));
      for (;;) {
        await fs.writeFile(mine, "");
        if (!existsSync(RESTARTING)) break;
        await fs.rm(mine, { force: true });
        await sleep(200);
      }
      try {
        await provide();
      } finally {
        await fs.rm(mine, { force: true });
      }
    },
    { auto: true },
  ],
  baseURL: async ({}, provide) => {
    await provide(process.env.E2E_BASE_URL);
  },
  db: async ({}, provide) => {
    const database = connectDatabase(process.env.E2E_DATABASE_URL!, { max: 2, applicationName: "claimboard-e2e" });
    await provide(database.db);
    await database.client.end();
  },
  // Made before the test starts (queues exist only on purpose), so pages load with it listed.
  queue: async ({ db }, provide) => {
    await provide(await makeQueue(db, `e2e-${randomBytes(4).toString("hex")}`));
  },
  actorOf: async ({ db }, provide) => {
    await provide(async (person) => {
      const [user] = await db.select({ actorId: users.actorId }).from(users).where(eq(users.email, person.email));
      return (await findActor(db, user!.actorId))!;
    });
  },
});

export { expect };

/**
 * A README screenshot (e2e/screenshots/NAME.png), written only when asked for with
 * E2E_SCREENSHOTS=1 — an ordinary run takes it (so the page is still drawn the same) into
 * the test's own output folder and leaves the work tree as it was.
 */
export async function readmeScreenshot(page: Page, name: string, testInfo: TestInfo): Promise<void> {
  const path_ = process.env.E2E_SCREENSHOTS === "1" ? `e2e/screenshots/${name}.png` : testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path: path_, fullPage: true });
}
