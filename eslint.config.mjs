import next from "eslint-config-next";
import nextTypescript from "eslint-config-next/typescript";
import drizzle from "eslint-plugin-drizzle";

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
];

export default config;
