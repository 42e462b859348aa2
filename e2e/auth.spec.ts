import { AMAL, BILAL } from "./people";
import { expect, signIn, test } from "./fixtures";

test.describe("signing in", () => {
  test("a wrong password is refused in words, on the same page", async ({ page }) => {
    await page.goto("/login");
    await page.getByLabel("Email").fill(AMAL.email);
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Wrong" })).toHaveText("Wrong email or password.");
    await expect(page).toHaveURL(/\/login/);
    await expect(page.getByRole("button", { name: "Single sign-on" })).toHaveCount(0); // no OIDC configured
  });

  test("signed-out visitors go to sign-in and come back; signing out ends the session", async ({ page }) => {
    await page.goto("/tasks/1");
    await expect(page).toHaveURL(/\/login\?next=%2Ftasks%2F1$/);
    await page.goto("/?status=queued");
    await expect(page).toHaveURL(/\/login\?next=/);

    await signIn(page, BILAL, "/?status=queued");
    await expect(page).toHaveURL(/\/\?status=queued$/);
    await expect(page.getByTestId("signed-in-as")).toHaveText(/Bilal\s*· staff/);

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/login/);
    await page.goto("/");
    await expect(page).toHaveURL(/\/login/);
    await expect(page.getByRole("heading", { name: "Sign in to Claimboard" })).toBeVisible();
  });

  test("staff are kept out of the supervisors' inbox", async ({ page }) => {
    await signIn(page, AMAL);
    const response = await page.goto("/inbox");
    test.skip(response?.status() === 404, "the inbox page is not built yet");
    const keptOut = response?.status() === 403 || !new URL(page.url()).pathname.startsWith("/inbox");
    expect(keptOut, `staff reached ${page.url()} (${response?.status()})`).toBe(true);
  });
});
