import { defineConfig } from "vitest/config";
import { execArgv, resolve } from "./vitest.config";

// `npm run test:scale`: a deployment's shape on one machine — two instances behind HAProxy,
// PgBouncer in transaction mode, one PostgreSQL (docs/scaling.md). Needs the production
// build (npm test makes it) and Debian's pgbouncer and haproxy (.ci/run installs them).
export default defineConfig({
  resolve,
  test: {
    execArgv,
    include: ["test/scale/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    pool: "forks",
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 180_000,
  },
});
