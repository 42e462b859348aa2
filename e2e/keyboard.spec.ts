import type { Page } from "@playwright/test";
import { AMAL, SARA } from "./people";
import { expect, live, test } from "./fixtures";
import { makeTask } from "./seed";

// The keyboard alone: signing in, claiming, and a dialog that opens with focus inside,
// closes with Escape without sending anything, and gives focus back to its opener.

/** Presses Tab until the focused element has this accessible text (bounded: a test, not a hang). */
async function tabTo(page: Page, text: string | RegExp, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return el ? (el.getAttribute("aria-label") ?? el.innerText ?? "").trim() || (el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent?.trim() ?? "" : "") : "";
    });
    if (typeof text === "string" ? focused === text : text.test(focused)) return;
  }
  throw new Error(`Tab never reached ${text}`);
}

/** The focused element shows a focus ring (an outline), so a keyboard user sees where they are. */
async function expectFocusRing(page: Page): Promise<void> {
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
  expect(outline).not.toBe("none");
}

test("sign in, claim, and a dialog — by keyboard alone", async ({ page, db, queue, actorOf }) => {
  const task = await makeTask(db, await actorOf(SARA), { title: `Keyboard task ${queue}`, queue });
  await page.goto(`/login?next=${encodeURIComponent(`/tasks/${task.id}`)}`);
  await expect(page.getByRole("button", { name: "Sign in" })).toBeEnabled(); // hydrated
  await tabTo(page, "Email");
  await page.keyboard.type(AMAL.email);
  await page.keyboard.press("Tab");
  await page.keyboard.type(AMAL.password);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("signed-in-as")).toContainText(AMAL.name);
  await live(page);

  await tabTo(page, "Claim");
  await expectFocusRing(page);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "claimed");

  await tabTo(page, "Fail…");
  await page.keyboard.press("Enter");
  const fail = page.getByRole("dialog", { name: /^Fail/ });
  await expect(fail).toBeVisible();
  expect(await fail.evaluate((dialog) => dialog.contains(document.activeElement))).toBe(true);
  await page.keyboard.type("typed, then thought better of it");
  await page.keyboard.press("Escape");
  await expect(fail).toBeHidden();
  await expect(page.getByRole("button", { name: "Fail…" })).toBeFocused();
  await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "claimed"); // nothing sent

  await page.keyboard.press("Enter");
  await expect(fail).toBeVisible();
  await page.getByLabel("Reason").fill(""); // a fresh dialog: start from empty either way
  await page.keyboard.type("Nobody answered");
  await tabTo(page, "Report failure", 10);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "queued");
});
