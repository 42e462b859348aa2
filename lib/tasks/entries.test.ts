import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, test } from "vitest";

// The layout of lib/tasks (docs/architecture.md, "lib/tasks"), checked on the import graph:
// core depends on no feature folder, the model entry (lib/tasks/model.ts) reaches no server
// code at runtime, and neither does any client component. eslint.config.mjs keeps outside code
// on the entries; this file proves what the entries promise.

const ROOT = path.resolve(import.meta.dirname, "../..");
/** Packages a browser bundle must never hold: the database driver, the ORM and the server's own markers. */
const serverPackage = (pkg: string) => ["postgres", "drizzle-orm", "server-only", "@node-rs/argon2"].includes(pkg) || pkg.startsWith("node:");

function resolve(from: string, spec: string): string | null {
  const base = spec.startsWith("@/") ? spec.slice(2) : spec.startsWith(".") ? path.posix.join(path.posix.dirname(from), spec) : null;
  if (base === null) return null;
  for (const ext of [".ts", ".tsx", "/index.ts", "/index.tsx"]) {
    const file = path.posix.normalize(base + ext);
    if (existsSync(path.join(ROOT, file)) && statSync(path.join(ROOT, file)).isFile()) return file;
  }
  return null;
}

const imported = new Map<string, string[]>();

/** The specifiers a file imports at runtime: type-only imports and re-exports are erased, so not counted. */
function runtimeImports(file: string): string[] {
  if (imported.has(file)) return imported.get(file)!;
  const source = ts.createSourceFile(file, readFileSync(path.join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, true);
  const specs: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const c = node.importClause;
      const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : null;
      if (!(c?.isTypeOnly || (c && !c.name && named && named.length > 0 && named.every((e) => e.isTypeOnly)))) specs.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : null;
      if (!(node.isTypeOnly || (named && named.every((e) => e.isTypeOnly)))) specs.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      specs.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  imported.set(file, specs);
  return specs;
}

/** What `start` reaches at runtime that `banned` names (a package) or that lies in db/, each with the path to it. */
function reach(start: string, banned: (pkg: string) => boolean): string[] {
  const seen = new Map<string, string[]>([[start, [start]]]);
  const todo = [start];
  const found: string[] = [];
  while (todo.length > 0) {
    const file = todo.pop()!;
    for (const spec of runtimeImports(file)) {
      const next = resolve(file, spec);
      const trail = [...seen.get(file)!, next ?? spec];
      if (next === null) {
        const pkg = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : (spec.split("/")[0] ?? spec);
        if (banned(pkg)) found.push(trail.join(" → "));
      } else if (next.startsWith("db/")) found.push(trail.join(" → "));
      // A server action's module reaches the browser as references to the server, not as code.
      else if (!seen.has(next) && !isServerActions(next)) {
        seen.set(next, trail);
        todo.push(next);
      }
    }
  }
  return found;
}

const isServerActions = (file: string) => /^\s*(\/\/[^\n]*\n\s*)*["']use server["']/.test(readFileSync(path.join(ROOT, file), "utf8"));

const filesUnder = (dir: string): string[] =>
  readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(`${dir}/${e.name}`) : /\.tsx?$/.test(e.name) ? [`${dir}/${e.name}`] : [],
  );

describe("lib/tasks/core", () => {
  const core = filesUnder("lib/tasks/core").filter((f) => !f.endsWith(".test.ts"));

  test("imports no feature folder and no entry: features build on core, never the reverse", () => {
    const outward = core.flatMap((file) =>
      [...new Set(runtimeImports(file).concat(typeImports(file)))].flatMap((spec) => {
        const target = resolve(file, spec);
        return target?.startsWith("lib/tasks/") && !target.startsWith("lib/tasks/core/") ? [`${file} → ${spec}`] : [];
      }),
    );
    expect(outward).toEqual([]);
  });

  test("the check sees a feature import", () => {
    expect(resolve("lib/tasks/core/task-row.ts", "../effects/ledger")).toBe("lib/tasks/effects/ledger.ts");
  });
});

/** Type-only imports too: a type is a dependency of the design even when the compiler erases it. */
function typeImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(path.join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, true);
  return source.statements.flatMap((s) => ((ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier && ts.isStringLiteral(s.moduleSpecifier) ? [s.moduleSpecifier.text] : []));
}

describe("the entries", () => {
  test("@/lib/tasks/model reaches no server code: client components may import it", () => {
    expect(reach("lib/tasks/model.ts", (pkg) => pkg !== "zod")).toEqual([]);
  });

  test("no client component reaches the database", () => {
    const clients = ["app", "components", "lib"]
      .flatMap(filesUnder)
      .filter((f) => !/\.test\.tsx?$/.test(f) && /^\s*["']use client["']/.test(readFileSync(path.join(ROOT, f), "utf8")));
    expect(clients.length).toBeGreaterThan(10);
    expect(clients.flatMap((f) => reach(f, serverPackage))).toEqual([]);
  });

  test("the index and every script load outside Next.js: nothing they reach imports server-only", () => {
    // `server-only` throws outside a Next.js server; the CLI and the stdio MCP server import the index.
    const scripts = filesUnder("scripts").filter((f) => /^scripts\/[^/]+\.ts$/.test(f) && !f.endsWith(".test.ts"));
    const marked = ["lib/tasks/index.ts", ...scripts].flatMap((f) => reach(f, (pkg) => pkg === "server-only"));
    expect(marked.filter((trail) => trail.endsWith("server-only"))).toEqual([]);
  });

  test("importing the index opens no pool: it reaches neither db/client.ts nor the driver", () => {
    // The pool belongs to whoever runs the engine (the server, the CLI, a test), not to an import.
    expect(reach("lib/tasks/index.ts", (pkg) => pkg === "postgres").filter((t) => t.endsWith("db/client.ts") || t.endsWith("postgres"))).toEqual([]);
  });

  test("the check sees server code", () => {
    expect(reach("lib/tasks/index.ts", serverPackage).some((t) => t.includes("db/"))).toBe(true);
  });
});
