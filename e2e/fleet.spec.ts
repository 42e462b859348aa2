import { sql } from "drizzle-orm";
import { SARA } from "./people";
import { expect, live, signIn, test } from "./fixtures";
import { makeTask } from "./seed";
import { createUser } from "../lib/auth/users";
import { claim, createActor, perform } from "../lib/tasks";

// The fleet (/agents) and people management (/people), as a supervisor does them (docs/fleet.md).

test.describe("the fleet", () => {
  test("an agent working over the API shows its instance and held task live; its token is revoked from its card", async ({ page, request, db, queue, actorOf }) => {
    const name = `fleet-${queue}`;
    const title = `Crawl the portal ${queue}`;
    await makeTask(db, await actorOf(SARA), { title, queue });
    await signIn(page, SARA, "/agents");
    await page.getByLabel("Token name").fill(name);
    await page.getByRole("button", { name: "Create token" }).click();
    const dialog = page.getByRole("dialog", { name: `Token ${name} created` });
    const token = await dialog.getByLabel("Token", { exact: true }).inputValue();
    const origin = new URL(page.url()).origin;
    await expect(dialog.getByLabel("Start the reference agent")).toHaveValue(`CLAIMBOARD_URL=${origin} CLAIMBOARD_TOKEN=${token} npm run agent -- --queue default`);
    await expect(dialog.getByLabel("MCP client config, stdio")).toHaveValue(new RegExp(`"CLAIMBOARD_TOKEN": "${token}"`));
    const http = await dialog.getByLabel("MCP client config, HTTP").inputValue();
    expect(JSON.parse(http)).toEqual({ mcpServers: { claimboard: { type: "http", url: `${origin}/api/mcp`, headers: { Authorization: `Bearer ${token}` } } } });
    await dialog.getByRole("button", { name: "Done" }).click();

    const card = page.getByRole("region", { name: `Agent ${name}` });
    await expect(card).toContainText("never");
    await live(page);
    const instance = `crawler-box:${queue}`;
    const claimed = await request.post("/api/v1/claims", {
      headers: { Authorization: `Bearer ${token}`, "Claimboard-Instance": instance },
      data: { queue, start: true },
    });
    expect(claimed.status()).toBe(200);
    // Live: the claim's events refetch the page.
    await expect(card.getByRole("list", { name: `Instances of ${name}` })).toContainText(instance);
    await expect(card.getByRole("list", { name: `Tasks ${name} holds` }).getByRole("link", { name: new RegExp(title) })).toBeVisible();
    await expect(card.getByTestId("held-count")).toHaveText("1 task");
    await expect(card.getByTestId("last-seen")).toContainText("started");

    await card.getByRole("button", { name: `Revoke ${name} of agent ${name}` }).click();
    await page.getByRole("dialog", { name: `Revoke token ${name}?` }).getByRole("button", { name: "Revoke token" }).click();
    await expect(card).toContainText("revoked");
    expect((await request.get("/api/v1/tasks?limit=1", { headers: { Authorization: `Bearer ${token}` } })).status()).toBe(401);
  });

  test("the demo's kind of agent — one with no token, that worked through the engine — is listed", async ({ page, db, queue, actorOf }) => {
    const bot = await createActor(db, "agent", `engine-bot-${queue}`);
    const task = await makeTask(db, await actorOf(SARA), { title: `Engine work ${queue}`, queue });
    const result = await perform(claim, { taskId: task.id, version: task.version }, { db, actor: bot });
    expect(result.ok).toBe(true);
    await signIn(page, SARA, "/agents");
    const card = page.getByRole("region", { name: `Agent engine-bot-${queue}` });
    await expect(card).toContainText("No token");
    await expect(card.getByTestId("held-count")).toHaveText("1 task");
  });
});

test.describe("people", () => {
  test("invite a person, change their role, lock them out by failed sign-ins, unlock, and they sign in", async ({ page, browser, db, queue }) => {
    const email = `new-${queue}@example.com`;
    const name = `Nadia ${queue}`;
    await signIn(page, SARA, "/people");
    const form = page.getByRole("form", { name: "Invite a person" });
    await form.getByLabel("Email").fill(email);
    await form.getByLabel("Name").fill(name);
    await form.getByRole("button", { name: "Invite" }).click();
    const invited = page.getByRole("dialog", { name: `${email} is invited` });
    const password = await invited.getByLabel("Initial password").inputValue();
    expect(password.length).toBeGreaterThanOrEqual(20);
    await invited.getByRole("button", { name: "Done" }).click();

    const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name }) });
    await expect(row).toContainText("can sign in");
    await row.getByLabel(`Role of ${name}`).selectOption("supervisor");
    await expect(page.getByRole("status").filter({ hasText: `${name} is now supervisor.` })).toBeVisible();
    const [stored] = await db.execute<{ role: string }>(sql`SELECT role FROM users WHERE email = ${email}`);
    expect(stored!.role).toBe("supervisor");

    // Five wrong passwords lock the account; the right one is refused too while it is locked.
    const context = await browser.newContext({ baseURL: process.env.E2E_BASE_URL });
    const theirs = await context.newPage();
    const attempt = async (pw: string) => {
      await theirs.goto("/login");
      await theirs.getByLabel("Email").fill(email);
      await theirs.getByLabel("Password").fill(pw);
      await theirs.getByRole("button", { name: "Sign in" }).click();
    };
    for (let i = 0; i < 5; i++) {
      await attempt(`wrong-${i}-password`);
      await expect(theirs.getByRole("alert").filter({ hasText: "Wrong" })).toHaveText("Wrong email or password.");
    }
    await attempt(password);
    await expect(theirs.getByRole("alert").filter({ hasText: "Too many" })).toContainText("Too many failed sign-ins");

    await page.reload();
    await expect(row.getByTestId("sign-in-state")).toHaveText("locked: 5 failed sign-ins");
    await row.getByRole("button", { name: `Unlock sign-in of ${name}` }).click();
    await expect(page.getByRole("status").filter({ hasText: `${name} can sign in again.` })).toBeVisible();
    await expect(row.getByTestId("sign-in-state")).toHaveText("can sign in");

    await attempt(password);
    await expect(theirs.getByTestId("signed-in-as")).toContainText(name);
    await expect(theirs.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "People" })).toBeVisible(); // a supervisor now
    await context.close();
  });

  // The last-supervisor rule is proved in lib/auth/people.test.ts: here other tests promote people
  // in parallel, so Sara is not reliably the last one.
  test("disabling a person asks first, then takes effect", async ({ page, db, queue }) => {
    await signIn(page, SARA, "/people");
    const name = `Temp ${queue}`;
    await createUser(db, { email: `temp-${queue}@example.com`, name, role: "staff", password: "temp-password-1" });
    await page.reload();
    const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name }) });
    await row.getByRole("button", { name: `Disable ${name}` }).click();
    const confirm = page.getByRole("dialog", { name: `Disable ${name}?` });
    await confirm.getByRole("button", { name: `Disable ${name}` }).click();
    await expect(row.getByTestId("sign-in-state")).toHaveText("disabled");
    const [stored] = await db.execute<{ disabled: boolean }>(sql`SELECT disabled FROM users WHERE email = ${`temp-${queue}@example.com`}`);
    expect(stored!.disabled).toBe(true);
  });
});
