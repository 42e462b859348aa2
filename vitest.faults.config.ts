import { defineConfig } from "vitest/config";
import { execArgv, resolve } from "./vitest.config";

// `npm run test:faults`: faults injected from outside into real processes (docs/reliability.md).
// One file at a time: a fault (a PostgreSQL restart, a held visibility horizon, a
// terminated backend) reaches every database of the suite's cluster.
export default defineConfig({
  resolve,
  test: {
    execArgv,
    include: ["test/faults/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    pool: "forks",
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 240_000,
    hookTimeout: 180_000,
  },
});
