import { defineConfig, devices } from "@playwright/test";

/**
 * End-to-end tests against the production build: e2e/global-setup.ts builds when there is
 * no build, starts a fresh PostgreSQL database and `next start`, and hands the tests the
 * URLs through the environment. Chromium comes from Debian (/usr/bin/chromium); Playwright
 * never downloads a browser here.
 */
export default defineConfig({
  testDir: "./e2e",
  globalSetup: "./e2e/global-setup.ts",
  workers: 2,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [["list"], ["html", { open: "never" }]] : "list",
  use: {
    baseURL: process.env.E2E_BASE_URL,
    trace: { mode: "retain-on-failure", screenshots: false },
    screenshot: "only-on-failure",
    actionTimeout: 10_000,
  },
  projects: [
    {
      name: "chromium",
      use: {
        ...devices["Desktop Chrome"],
        launchOptions: {
          executablePath: "/usr/bin/chromium",
          args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
        },
      },
    },
  ],
});
