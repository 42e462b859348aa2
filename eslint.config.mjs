import next from "eslint-config-next";
import nextTypescript from "eslint-config-next/typescript";
import drizzle from "eslint-plugin-drizzle";

const TASKS_ENTRIES = "Import lib/tasks through its entries: \"@/lib/tasks\" (server) or \"@/lib/tasks/model\" (pure, client-safe); see docs/architecture.md, \"lib/tasks\".";

const config = [
  { ignores: [".next/**", ".data/**", "node_modules/**", "next-env.d.ts", "db/migrations/**", "bench/results/**", "bench/scratch/**"] },
  ...next,
  ...nextTypescript,
  {
    plugins: { drizzle },
    rules: {
      // An UPDATE or DELETE without WHERE is never what a transition means.
      "drizzle/enforce-update-with-where": ["error", { drizzleObjectName: ["db", "tx"] }],
      "drizzle/enforce-delete-with-where": ["error", { drizzleObjectName: ["db", "tx"] }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  // lib/tasks has one layout (docs/architecture.md, "lib/tasks"): outside code enters through its
  // entries, `@/lib/tasks` (operations and reads, server only) and `@/lib/tasks/model` (types, the
  // machine, schemas: no server code, for client components too), never a deep module. Tests
  // (test/, e2e/, bench/, *.test.ts) are white-box and may reach inside.
  ...[
    { files: ["**/*.{ts,tsx,mts}"], ignores: ["lib/**"], patterns: [] },
    { files: ["lib/**/*.{ts,tsx,mts}"], ignores: [], patterns: [{ regex: "^(\\.\\./)+tasks/[^/]+/", message: TASKS_ENTRIES }] },
  ].map(({ files, ignores, patterns }) => ({
    files,
    ignores: [...ignores, "lib/tasks/**", "test/**", "e2e/**", "bench/**", "**/*.test.{ts,tsx}", "**/*.spec.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ regex: "^(@/|\\./|(\\.\\./)+)lib/tasks/[^/]+/", message: TASKS_ENTRIES }, ...patterns] }],
      "no-restricted-syntax": ["error", { selector: "ImportExpression[source.value=/^(@\\/|\\.\\/|(\\.\\.\\/)+)lib\\/tasks\\/[^/]+\\//]", message: TASKS_ENTRIES }],
    },
  })),
  {
    // Core is what every feature builds on (the machine, perform, events, the task row): it
    // imports no feature folder and no entry, so a feature can change without touching it.
    files: ["lib/tasks/core/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ regex: "^(\\.\\./|@/lib/tasks)", message: "lib/tasks/core imports no feature and no entry: move what it needs into core (docs/architecture.md, \"lib/tasks\")." }] }],
    },
  },
];

export default config;
