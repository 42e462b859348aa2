import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect, test } from "vitest";

// scripts/module-hooks.mjs must change how fast modules resolve, never what they resolve to.
// A child loads the engine (through tsx, as the scripts do), drizzle-orm by import and by
// require, zod, postgres and the MCP SDK, once with the hook and once without, and lists every
// resolution it made (who asked for what, under which conditions → which file, in which
// format); the lists must be the same. A second hook, registered before the project's, runs
// after it (the last registered runs first) and counts the resolutions that reached it: with
// the project's hook at work, most never do.
const probe = `
import { createRequire, registerHooks } from "node:module";
const resolutions = new Set();
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    resolutions.add([context.parentURL, specifier, context.conditions, resolved.url, resolved.format].join(" "));
    return resolved;
  },
});
await import("./lib/tasks/index.ts");
await import("drizzle-orm/pg-core");
await import("zod");
await import("postgres");
await import("@modelcontextprotocol/sdk/server/mcp.js");
createRequire(process.cwd() + "/")("drizzle-orm/pg-core");
console.log(JSON.stringify({ resolutions: [...resolutions].sort(), reachedNode: globalThis.reachedNode }));
`;

// Counts, of the resolutions that reach it, the relative imports inside drizzle-orm and the
// project's imports of drizzle-orm by name: the two the project's hook answers.
const countReachingNode = "data:text/javascript," + encodeURIComponent(`
  import { registerHooks } from "node:module";
  globalThis.reachedNode = { insideDrizzle: 0, drizzleByName: 0 };
  registerHooks({ resolve(specifier, context, next) {
    const parent = context.parentURL ?? "";
    if (parent.includes("/node_modules/drizzle-orm/") && !context.conditions.includes("require")) globalThis.reachedNode.insideDrizzle++;
    if (!parent.includes("/node_modules/") && specifier.startsWith("drizzle-orm")) globalThis.reachedNode.drizzleByName++;
    return next(specifier, context);
  } });
`);

interface Loaded {
  resolutions: string[];
  reachedNode: { insideDrizzle: number; drizzleByName: number };
}

async function load(hooked: boolean): Promise<Loaded> {
  const hook = hooked ? ["--import", "./scripts/module-hooks.mjs"] : [];
  const { stdout } = await promisify(execFile)(
    process.execPath, ["--import", countReachingNode, ...hook, "--import", "tsx", "--input-type=module", "--eval", probe],
    { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NODE_OPTIONS: "" } },
  );
  return JSON.parse(stdout) as Loaded;
}

test("with the hook every import resolves to the same file in the same format as without it; most never reached Node's resolver", { timeout: 60_000 }, async () => {
  const [plain, hooked] = await Promise.all([load(false), load(true)]);
  const count = (pattern: RegExp) => plain.resolutions.filter((r) => pattern.test(r)).length;
  expect(count(/\/node_modules\/drizzle-orm\/\S+\.js module$/)).toBeGreaterThan(50);
  expect(count(/\/node_modules\/drizzle-orm\/\S+\.cjs $/)).toBeGreaterThan(50); // require() leaves the format to the loader
  expect(count(/^file:\S+\/lib\/tasks\/\S+ drizzle-orm /)).toBeGreaterThan(20);
  expect(hooked.resolutions).toEqual(plain.resolutions);
  expect(plain.reachedNode.insideDrizzle).toBeGreaterThan(300);
  expect(plain.reachedNode.drizzleByName).toBeGreaterThan(50);
  expect(hooked.reachedNode.insideDrizzle).toBe(0);
  expect(hooked.reachedNode.drizzleByName).toBeLessThan(plain.reachedNode.drizzleByName / 2); // once per directory
});
