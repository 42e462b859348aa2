import { SARA } from "./people";
import { expect, signIn, test } from "./fixtures";
import { createUser } from "../lib/auth/users";

// Issue 25: a supervisor hands a forgetful person a one-time reset link; the person sets a new
// password with it and is signed in; the link does nothing a second time. Then they change
// their password themselves on /account, which ends their session in another browser.

test("a reset link sets a new password once; the person then changes it on /account", async ({ page, browser, db, queue }) => {
  const name = `Forgetful ${queue}`;
  const email = `forgetful-${queue}@example.com`;
  await createUser(db, { email, name, role: "staff", password: "forgotten-password-1" });
  await signIn(page, SARA, "/people");
  const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name }) });
  await row.getByRole("button", { name: `Password reset link for ${name}` }).click();
  const link = await page.getByRole("textbox", { name: "Link", exact: true }).inputValue();
  expect(link).toMatch(/\/login#reset=[A-Za-z0-9_-]{40,}$/);

  const context = await browser.newContext({ baseURL: new URL(link).origin });
  const theirs = await context.newPage();
  await theirs.goto(link);
  await expect(theirs.getByLabel("Email")).toHaveCount(0);
  await theirs.getByLabel("New password").fill("brand-new-password-1");
  await theirs.getByRole("button", { name: "Set password and sign in" }).click();
  await expect(theirs.getByTestId("signed-in-as")).toContainText(name);

  // The same link again: refused in words.
  const again = await (await browser.newContext({ baseURL: new URL(link).origin })).newPage();
  await again.goto(link);
  await again.getByLabel("New password").fill("another-password-1");
  await again.getByRole("button", { name: "Set password and sign in" }).click();
  await expect(again.getByRole("alert").filter({ hasText: "does not work any more" })).toBeVisible();

  // Signed in elsewhere too (a second browser): that session ends with the change on /account.
  const elsewhereContext = await browser.newContext({ baseURL: new URL(link).origin });
  const elsewhere = await elsewhereContext.newPage();
  await signIn(elsewhere, { email, name, role: "staff", password: "brand-new-password-1" } as unknown as Parameters<typeof signIn>[1], "/");
  await expect(elsewhere.getByTestId("signed-in-as")).toContainText(name);

  // On /account, with the password the link set.
  await theirs.goto("/account");
  await theirs.getByLabel("Current password").fill("brand-new-password-1");
  await theirs.getByLabel("New password", { exact: true }).fill("changed-password-22");
  await theirs.getByLabel("New password again").fill("changed-password-22");
  await theirs.getByRole("button", { name: "Change password" }).click();
  await expect(theirs.getByRole("status").filter({ hasText: "Your password is changed" })).toBeVisible();
  // This session goes on; the other one is over at its next request.
  await theirs.goto("/");
  await expect(theirs.getByTestId("signed-in-as")).toContainText(name);
  await elsewhere.goto("/");
  await expect(elsewhere).toHaveURL(/\/login/);
  await elsewhereContext.close();
  await context.close();
});
