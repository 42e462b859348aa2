// Stands in for the `server-only` marker under Vitest (see vitest.config.ts).
export {};
