import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { endpoints, type EndpointId } from "@/lib/http/endpoints";

// Entry points found in the source, not listed by hand: a new server action or route shows
// up here, and the matrix fails until it has a row of expectations.

function walk(dir: string, keep: (file: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : walk(full, keep);
    return keep(full) ? [full] : [];
  });
}

export interface SourceAction {
  file: string;
  name: string;
  /** The role its guardedAction/operationAction call demands; null when it has no guard we can read. */
  role: "staff" | "supervisor" | null;
}

const GUARDED = /^export const (\w+) = (?:operationAction|guardedAction)\(\s*"(staff|supervisor)"/gm;

/** Every value exported from a `"use server"` file under app/, components/ and lib/. */
export function sourceActions(): SourceAction[] {
  const files = ["app", "components", "lib"].flatMap((dir) => walk(dir, (f) => /\.(ts|tsx)$/.test(f) && !f.endsWith(".test.ts")));
  return files
    .filter((file) => /^\s*(\/\/.*\n|\/\*[\s\S]*?\*\/\s*)*["']use server["']/.test(readFileSync(file, "utf8")))
    .flatMap((file) => {
      const source = readFileSync(file, "utf8");
      const exported = [...source.matchAll(/^export\s+(?:async\s+)?(?:const|let|var|function\*?|class)\s+(\w+)/gm)].map((m) => m[1]!);
      const reexported = [...source.matchAll(/^export\s*\{([^}]*)\}/gm)].flatMap((m) =>
        m[1]!.split(",").map((part) => part.trim().split(/\s+as\s+/).at(-1)!).filter(Boolean),
      );
      const roles = new Map([...source.matchAll(GUARDED)].map((m) => [m[1]!, m[2] as "staff" | "supervisor"] as const));
      return [...exported, ...reexported].map((name) => ({ file, name, role: roles.get(name) ?? null }));
    });
}

export interface SourceRoute {
  file: string;
  /** The URL path in OpenAPI form, e.g. /api/v1/tasks/{id}/claim. */
  path: string;
  methods: string[];
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/** Every app/**\/route.ts with the HTTP methods it exports. */
export function sourceRoutes(): SourceRoute[] {
  return walk("app", (f) => /\/route\.(ts|tsx|js)$/.test(f)).map((file) => {
    const source = readFileSync(file, "utf8");
    const direct = [...source.matchAll(/^export\s+(?:async\s+)?(?:const|function)\s+(\w+)/gm)].map((m) => m[1]!);
    const aliased = [...source.matchAll(/^export\s*\{([^}]*)\}/gm)].flatMap((m) =>
      m[1]!.split(",").map((part) => part.trim().split(/\s+as\s+/).at(-1)!),
    );
    // A registry route file (lib/http/routes.ts `route`): the methods of the endpoints it names.
    const named = /= route\(([^)]*)\)/.exec(source)?.[1]?.match(/"(\w+)"/g)?.map((id) => endpoints[JSON.parse(id) as EndpointId].method) ?? [];
    const dir = path.dirname(file).replace(/^app/, "");
    const urlPath = dir.replace(/\[\.\.\.(\w+)\]/g, "{...$1}").replace(/\[(\w+)\]/g, "{$1}") || "/";
    return { file, path: urlPath, methods: [...direct, ...aliased, ...named].filter((m) => METHODS.includes(m)).sort() };
  });
}
