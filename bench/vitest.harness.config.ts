import { defineConfig } from "vitest/config";
import { resolve } from "../vitest.config";

// In-process CPU harnesses (bench/*.harness.ts): the route handlers called without Next.js,
// under vitest because it resolves next-auth's modules outside Next.js as the tests do. Not
// part of `npm test`; run one with
//   npx vitest run --config bench/vitest.harness.config.ts [name]
// (TEST_DATABASE_URL for a server of your own, else the embedded PostgreSQL).
export default defineConfig({
  resolve,
  test: {
    include: ["bench/**/*.harness.ts"],
    globalSetup: ["test/global-setup.ts"],
    pool: "forks",
    maxWorkers: 1,
    testTimeout: 900_000,
    hookTimeout: 180_000,
  },
});
