import { randomBytes } from "node:crypto";
import { test as base, expect, type Browser, type Page } from "@playwright/test";
import { eq } from "drizzle-orm";
import { connectDatabase, type Database } from "../db/client";
import { users } from "../db/schema";
import { findActor } from "../lib/tasks/actors";
import type { ActorRef } from "../lib/tasks/types";
import type { Person } from "./people";

/** Signs in through the login page, as a person would, and waits for the board. */
export async function signIn(page: Page, person: Person, next = "/"): Promise<void> {
  await page.goto(`/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(person.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("signed-in-as")).toContainText(person.name);
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

export interface Fixtures {
  /** The test's own database connection (the same database the server uses). */
  db: Database["db"];
  /** A queue name no other test uses, so parallel tests never see each other's tasks. */
  queue: string;
  /** The actor behind a person's account. */
  actorOf: (person: Person) => Promise<ActorRef>;
}

export const test = base.extend<Fixtures>({
  baseURL: async ({}, provide) => {
    await provide(process.env.E2E_BASE_URL);
  },
  db: async ({}, provide) => {
    const database = connectDatabase(process.env.E2E_DATABASE_URL!, { max: 2, applicationName: "claimboard-e2e" });
    await provide(database.db);
    await database.client.end();
  },
  queue: async ({}, provide) => {
    await provide(`e2e-${randomBytes(4).toString("hex")}`);
  },
  actorOf: async ({ db }, provide) => {
    await provide(async (person) => {
      const [user] = await db.select({ actorId: users.actorId }).from(users).where(eq(users.email, person.email));
      return (await findActor(db, user!.actorId))!;
    });
  },
});

export { expect };
