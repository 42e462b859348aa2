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

  test("staff are kept out of the supervisors' pages", async ({ page }) => {
    await signIn(page, AMAL);
    for (const path of ["/inbox", "/agents", "/queues", "/insights"]) {
      const response = await page.goto(path);
      const keptOut = response?.status() === 403 || !new URL(page.url()).pathname.startsWith(path);
      expect(keptOut, `staff reached ${page.url()} (${response?.status()})`).toBe(true);
      await expect(page.getByRole("heading", { name: /Escalation inbox|Agents|Queues|Insights/, level: 1 })).toHaveCount(0);
    }
    // The header does not offer them either.
    await expect(page.getByRole("link", { name: "Inbox" })).toHaveCount(0);
  });

  test("a hostile next= never takes a signed-in person off this site", async ({ page, baseURL }) => {
    // Should a redirect escape, the other site answers here instead of DNS failing.
    await page.context().route(/^https?:\/\/evil\.example\//, (route) => route.fulfill({ status: 200, body: "evil" }));
    const origin = new URL(baseURL!).origin;
    const hostile = ["/%09/evil.example", "/%0a/evil.example", "/%0d/evil.example", "/%5Cevil.example", "//evil.example", "/%2F/evil.example", "/%252F/evil.example", "https://evil.example/"];

    // The form: signing in with the hostile next lands on the board.
    await page.goto(`/login?next=${hostile[0]}`);
    await page.getByLabel("Email").fill(BILAL.email);
    await page.getByLabel("Password").fill(BILAL.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.origin !== origin || url.pathname !== "/login");
    expect(new URL(page.url()).origin).toBe(origin);
    await expect(page.getByTestId("signed-in-as")).toContainText(BILAL.name);

    // The server's redirect of a visitor already signed in.
    for (const next of hostile) {
      await page.goto(`/login?next=${next}`).catch(() => null);
      expect(new URL(page.url()).origin, `next=${next}`).toBe(origin);
    }
  });
});
