import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Browser } from "@playwright/test";
import { createUser } from "../lib/auth/users";
import { startServer } from "../test/server";
import { expect, live, test } from "./fixtures";
import { startIdp } from "./oidc-idp";

// Single sign-on (lib/auth/options.ts): a second `next start` with OIDC_* set, against a
// minimal OpenID provider (e2e/oidc-idp.ts), on the run's database. It admits people who
// already have an account, matched by email; nobody else, and no disabled account.

async function ssoAttempt(browser: Browser, base: string) {
  const context = await browser.newContext({ baseURL: base });
  const page = await context.newPage();
  await page.goto("/login?next=/");
  await page.getByRole("button", { name: "Acme SSO" }).click();
  return { page, close: () => context.close() };
}

test("single sign-on: a known person is signed in; an unknown or disabled one is told, in words", async ({ browser, db }) => {
  const idp = await startIdp();
  const server = await startServer(process.env.E2E_DATABASE_URL!, {
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: idp.clientId,
    OIDC_CLIENT_SECRET: idp.clientSecret,
    OIDC_NAME: "Acme SSO",
  });
  try {
    const tag = randomBytes(3).toString("hex");
    await createUser(db, { email: `noor.${tag}@example.com`, name: `Noor ${tag}`, role: "staff", password: randomBytes(12).toString("hex") });

    // The provider's email in other case: accounts match case-insensitively.
    idp.signInAs({ sub: `idp-noor-${tag}`, email: `Noor.${tag}@Example.com`, name: "Noor at Acme" });
    const known = await ssoAttempt(browser, server.url);
    await expect(known.page.getByTestId("signed-in-as")).toContainText(`Noor ${tag}`);
    await live(known.page);
    await known.close();

    idp.signInAs({ sub: `idp-stranger-${tag}`, email: `stranger.${tag}@example.com`, name: "Stranger" });
    const stranger = await ssoAttempt(browser, server.url);
    await expect(stranger.page.getByText("That single sign-on account has no Claimboard account")).toBeVisible();
    await expect(stranger.page.getByTestId("signed-in-as")).toHaveCount(0);
    await stranger.close();

    await createUser(db, { email: `gone.${tag}@example.com`, name: `Gone ${tag}`, role: "staff", password: randomBytes(12).toString("hex") });
    await db.execute(sql`UPDATE users SET disabled = true WHERE email = ${`gone.${tag}@example.com`}`);
    idp.signInAs({ sub: `idp-gone-${tag}`, email: `gone.${tag}@example.com`, name: "Gone" });
    const disabled = await ssoAttempt(browser, server.url);
    await expect(disabled.page.getByText("That single sign-on account has no Claimboard account")).toBeVisible();
    await disabled.close();

    expect(idp.refusals, "token requests the provider refused (client secret, PKCE, redirect)").toEqual([]);
  } finally {
    await server.stop();
    await idp.close();
  }
});

test("single sign-on links an account only by an email the provider verified", async ({ browser, db }) => {
  const idp = await startIdp();
  const server = await startServer(process.env.E2E_DATABASE_URL!, {
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: idp.clientId,
    OIDC_CLIENT_SECRET: idp.clientSecret,
    OIDC_NAME: "Acme SSO",
  });
  try {
    // A supervisor's address, claimed by an IdP account that never proved it owns it.
    const tag = randomBytes(3).toString("hex");
    const email = `chief.${tag}@example.com`;
    await createUser(db, { email, name: `Chief ${tag}`, role: "supervisor", password: randomBytes(12).toString("hex") });

    for (const [claim, verified] of [["false", false], ["missing", undefined]] as const) {
      idp.signInAs({ sub: `idp-impostor-${claim}-${tag}`, email, name: "Impostor", email_verified: verified });
      const attempt = await ssoAttempt(browser, server.url);
      await expect(attempt.page.getByText("has not verified that email address"), `email_verified ${claim}`).toBeVisible();
      await expect(attempt.page.getByTestId("signed-in-as")).toHaveCount(0);
      const session = await attempt.page.request.get("/api/auth/session");
      expect(await session.json(), `no session with email_verified ${claim}`).toEqual({});
      await attempt.close();
    }

    // The same address, verified: the supervisor it belongs to.
    idp.signInAs({ sub: `idp-chief-${tag}`, email, name: "Chief at Acme", email_verified: true });
    const verified = await ssoAttempt(browser, server.url);
    await expect(verified.page.getByTestId("signed-in-as")).toContainText(`Chief ${tag}`);
    await verified.close();

    expect(idp.refusals, "token requests the provider refused (client secret, PKCE, redirect)").toEqual([]);
  } finally {
    await server.stop();
    await idp.close();
  }
});
