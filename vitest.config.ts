import path from "node:path";
import { defineConfig } from "vitest/config";

/** The project's import paths; the fault and scale configs use the same. */
export const resolve = {
  alias: {
    "@": path.resolve(import.meta.dirname),
    // Tests run server code outside Next.js, where this marker package would throw.
    "server-only": path.resolve(import.meta.dirname, "test/server-only.ts"),
  },
};

/**
 * Each worker starts with the hook the project's scripts start with (scripts/module-hooks.mjs):
 * without it, loading drizzle-orm costs every test file ~2.7 s of CPU on Node 24.
 */
export const execArgv = ["--import", path.resolve(import.meta.dirname, "scripts/module-hooks.mjs")];

export default defineConfig({
  resolve,
  test: {
    execArgv,
    include: ["lib/**/*.test.ts", "app/**/*.test.ts", "db/**/*.test.ts", "scripts/**/*.test.ts", "test/**/*.test.ts"],
    // The fault suite and the scale test have their own configs: `npm run test:faults`, `npm run test:scale`.
    exclude: ["**/node_modules/**", "test/faults/**", "test/scale/**"],
    globalSetup: ["test/global-setup.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
