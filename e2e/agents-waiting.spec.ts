import { SARA } from "./people";
import { expect, signIn, test } from "./fixtures";
import { createAgentToken } from "../lib/auth/tokens";

// /agents shows a token's wait as it opens (docs/fleet.md "States", "Live"): a wait writes no
// event of the feed, so the stamp that turns a token waiting NOTIFYs, the tab's stream
// carries `event: fleet`, and the page reads the fleet again — no reload, no polling. When
// the wait ends the page's own clock turns it idle. At a desktop width and a phone's.

for (const [label, viewport] of [["desktop", { width: 1440, height: 900 }], ["phone", { width: 390, height: 844 }]] as const) {
  test.describe(`a waiting agent on /agents (${label})`, () => {
    test.use({ viewport });

    test("a new wait shows the agent waiting at once; its end turns it idle", async ({ page, request, db, queue }, testInfo) => {
      const name = `waiter-${label}-${queue}`;
      const { token } = await createAgentToken(db, { name });
      await signIn(page, SARA, "/agents");
      const card = page.getByRole("region", { name: `Agent ${name}` });
      await expect(card).toBeVisible();
      await expect(card.getByTestId("fleet-state")).not.toHaveAttribute("data-state", "waiting");

      const began = Date.now();
      const wait = request.post("/api/v1/claims", { headers: { Authorization: `Bearer ${token}` }, data: { queue, wait: 4 }, timeout: 20_000 });
      const state = card.getByTestId("fleet-state");
      await expect(state).toHaveAttribute("data-state", "waiting", { timeout: 3_000 });
      await expect(state).toContainText(`waiting on ${queue}`);
      expect(Date.now() - began).toBeLessThan(3_000);
      await card.scrollIntoViewIfNeeded();
      await page.screenshot({ path: testInfo.outputPath(`agents-waiting-${label}.png`) });

      expect((await wait).status()).toBe(204);
      await expect(state).toHaveAttribute("data-state", "idle", { timeout: 5_000 });
    });
  });
}
