import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { buildOpenApiDocument } from "./openapi";

// A stock generator's output must compile as generated: openapi-typescript on the document,
// then tsc (strict) on its output and on a file that uses it the way a client would. The
// The expect-error lines fail the compile if a JSON field came out as `any`.

const require = createRequire(import.meta.url);
const dir = mkdtempSync(path.join(tmpdir(), "claimboard-openapi-ts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[]) => spawnSync(process.execPath, args, { cwd: dir, encoding: "utf8", timeout: 120_000 });

test("openapi-typescript's output of /api/v1/openapi.json type-checks, with JSON fields typed", () => {
  writeFileSync(path.join(dir, "openapi.json"), JSON.stringify(buildOpenApiDocument()));
  const generator = path.join(path.dirname(require.resolve("openapi-typescript/package.json")), "bin", "cli.js");
  const generated = run([generator, "openapi.json", "--output", "api.ts"]);
  expect(generated.status, generated.stderr).toBe(0);

  writeFileSync(path.join(dir, "use.ts"), `
import type { components, paths } from "./api";
type Task = components["schemas"]["Task"];
export const payload: Task["payload"] = { nested: [1, "two", { deep: [null, true] }] };
// @ts-expect-error a function is no JSON value (this line fails if payload came out as any)
export const notJson: Task["payload"] = () => 1;
type CompleteBody = paths["/tasks/{id}/complete"]["post"]["requestBody"]["content"]["application/json"];
export const body: CompleteBody = { version: 3, result: { ok: true }, next: { queue: "default", start: true } };
// @ts-expect-error result is JSON too
export const badResult: CompleteBody = { version: 3, result: Symbol("no") };
type Heartbeat = paths["/tasks/{id}/heartbeat"]["post"]["requestBody"]["content"]["application/json"];
// @ts-expect-error progress is JSON too
export const badProgress: Heartbeat = { version: 3, progress: new Map() };
type Completions = paths["/completions"]["post"]["responses"]["200"]["content"]["application/json"];
export const results: Completions["results"] = [{ id: "1", ok: false, error: { code: "not_owner", message: "…" } }];
`);
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "ESNext", moduleResolution: "Bundler", skipLibCheck: true },
    files: ["api.ts", "use.ts"],
  }));
  const checked = run([require.resolve("typescript/bin/tsc"), "-p", "."]);
  expect(checked.stdout + checked.stderr).toBe("");
  expect(checked.status).toBe(0);
});
