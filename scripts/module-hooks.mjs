// Loaded with `node --import ./scripts/module-hooks.mjs` before tsx by every script entry
// point (package.json's scripts, test/cli.ts's scriptNodeArgs) and by Vitest's workers
// (vitest.config.ts).
//
// Why: since Node 22 (24.22.3 included), resolving an ES module file inside a package
// re-reads that package's package.json and parses its whole "exports" map, once to find a
// bare name's file and again to learn each file's module type. drizzle-orm's package.json is
// 179 KB with 447 exports; loading it follows ~430 relative imports among ~100 of its files,
// and the project's files name drizzle-orm ~90 times. A CLI command took 2.3 s of CPU, 1.3 s
// of it in this (docs/runtime.md, "Module loading"); every agent, migration and test worker
// paid the same.
//
// The hook answers two cases without that work, the same way Node would:
// - a bare name from a directory under the same conditions resolves to the same file every
//   time, so the first answer (Node's or tsx's) is kept and given again;
// - a relative import (not a require) of an existing .js/.mjs/.cjs file from a module inside
//   node_modules is that file, its format given by the extension or by the nearest
//   package.json's "type" (read once per directory); a package without a "type" is left to Node.
// Every other import goes to Node's resolver (and tsx's) unchanged.
import { readFileSync, statSync } from "node:fs";
import { registerHooks } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Directory → the "type" of its nearest package.json ("module", "commonjs" or null for none). */
const typeByDirectory = new Map();

function packageType(directory) {
  if (typeByDirectory.has(directory)) return typeByDirectory.get(directory);
  let text = null;
  try {
    text = readFileSync(path.join(directory, "package.json"), "utf8");
  } catch {
    // none here: the parent directory's decides
  }
  let type = null;
  if (text === null) {
    const parent = path.dirname(directory);
    type = parent === directory ? null : packageType(parent);
  } else {
    try {
      const json = JSON.parse(text);
      type = json.type === "module" || json.type === "commonjs" ? json.type : null;
    } catch {
      // a malformed package.json: Node's resolver says so
    }
  }
  typeByDirectory.set(directory, type);
  return type;
}

function formatOf(file) {
  if (file.endsWith(".mjs")) return "module";
  if (file.endsWith(".cjs")) return "commonjs";
  return packageType(path.dirname(file)); // .js
}

function isFile(file) {
  return statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
}

/** A bare name's resolution from a directory under a set of conditions: the same every time. */
const bareByDirectory = new Map();
const isBare = (specifier) => !/^(\.{0,2}\/|[a-z][a-z0-9+.-]*:|#)/i.test(specifier);

registerHooks({
  resolve(specifier, context, nextResolve) {
    const parent = context.parentURL;
    if (parent?.startsWith("file:") && isBare(specifier)) {
      const key = `${context.conditions?.join(",")}\0${new URL(".", parent).href}\0${specifier}`;
      const known = bareByDirectory.get(key);
      if (known) return known;
      const resolved = nextResolve(specifier, context);
      if (resolved.url.startsWith("file:")) bareByDirectory.set(key, { url: resolved.url, format: resolved.format, shortCircuit: true });
      return resolved;
    }
    if (
      parent?.startsWith("file:") && parent.includes("/node_modules/")
      && !context.conditions?.includes("require") // require() reads a type without parsing exports
      && (specifier.startsWith("./") || specifier.startsWith("../"))
      && /\.[cm]?js$/.test(specifier)
    ) {
      const url = new URL(specifier, parent);
      const file = fileURLToPath(url);
      const format = isFile(file) ? formatOf(file) : null;
      if (format) return { url: url.href, format, shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});
