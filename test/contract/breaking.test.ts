import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import {
  breakingChanges, CONTRACT_DIR, mcpAsOpenApi, readJson, undeclared, unused,
  type Declarations, type McpToolSchema,
} from "./breaking";
import { currentMcpTools, currentOpenApi } from "./current";

// Contract discipline by tooling: today's OpenAPI document and MCP tool list against the
// committed ones of the last release (contract/), failing on any breaking change that
// contract/declared-breaking.json does not declare. Additive changes pass.
//
// At a release: `CONTRACT_RELEASE=1.3 npx vitest run test/contract/breaking.test.ts` writes
// contract/openapi-v1.3.json and contract/mcp-tools-v1.3.json; then set "baseline" to it and
// empty the declarations in contract/declared-breaking.json.

const declared = readJson<Declarations>("declared-breaking.json");
const release = process.env.CONTRACT_RELEASE;

let openapi: Record<string, unknown>;
let tools: McpToolSchema[];
beforeAll(async () => {
  openapi = currentOpenApi();
  tools = await currentMcpTools();
});

const clone = <T>(value: T): T => structuredClone(value);
const explain = (changes: { where: string; description: string }[]) =>
  changes.map((c) => `${c.where}\n    ${c.description}`).join("\n");

describe.runIf(release)("writing a release's documents", () => {
  test(`contract/*-v${release}.json`, () => {
    const write = (file: string, value: unknown) => writeFileSync(path.join(CONTRACT_DIR, file), JSON.stringify(value, null, 2) + "\n");
    write(`openapi-v${release}.json`, openapi);
    write(`mcp-tools-v${release}.json`, tools);
  });
});

describe.skipIf(release)(`against release ${declared.baseline}`, () => {
  const baseline = (kind: "openapi" | "mcp-tools") => `${kind}-v${declared.baseline}.json`;

  test("the baseline documents are committed and every declaration says why", () => {
    for (const kind of ["openapi", "mcp-tools"] as const) expect(existsSync(path.join(CONTRACT_DIR, baseline(kind))), baseline(kind)).toBe(true);
    for (const d of [...declared.openapi, ...declared.mcp, ...declared.documented]) expect(d.reason.length).toBeGreaterThan(20);
    for (const d of declared.documented) expect(d.change?.length ?? 0).toBeGreaterThan(20);
    for (const d of [...declared.openapi, ...declared.mcp]) expect(d.where).toMatch(/^\//);
  });

  test("the OpenAPI document breaks nothing the release promised, beyond what is declared", () => {
    const changes = breakingChanges(readJson(baseline("openapi")), openapi);
    const missing = undeclared(changes, declared.openapi);
    expect(missing, `undeclared breaking changes (declare them in contract/declared-breaking.json, or undo them):\n${explain(missing)}`).toEqual([]);
    expect(unused(changes, declared.openapi), "declarations that match no change").toEqual([]);
  });

  test("the MCP tools break nothing the release promised, beyond what is declared", () => {
    const changes = breakingChanges(mcpAsOpenApi(readJson(baseline("mcp-tools"))), mcpAsOpenApi(tools));
    const missing = undeclared(changes, declared.mcp);
    expect(missing, `undeclared breaking changes in the MCP tools:\n${explain(missing)}`).toEqual([]);
    expect(unused(changes, declared.mcp), "declarations that match no change").toEqual([]);
  });
});

type Schema = { properties: Record<string, unknown>; required?: string[] };
const schemaOf = (doc: Record<string, unknown>, name: string) =>
  (doc.components as { schemas: Record<string, Schema> }).schemas[name]!;
const paths = (doc: Record<string, unknown>) => doc.paths as Record<string, Record<string, Record<string, unknown>>>;

describe("the check itself", () => {
  test("a removed response field fails, naming every operation that answered with it; a new required body field fails", () => {
    const after = clone(openapi);
    const task = schemaOf(after, "Task");
    delete task.properties.version;
    task.required = task.required?.filter((key) => key !== "version");
    const missing = undeclared(breakingChanges(openapi, after), []);
    const where = missing.map((c) => c.where);
    expect(where).toContain("/paths/~1tasks~1{id}/get/responses/200/content/application~1json/schema/properties/task/properties/version");
    expect(where.some((w) => w.startsWith("/paths/~1claims/post/responses/200/"))).toBe(true);

    const stricter = clone(openapi);
    const body = (paths(stricter)["/tasks/{id}/complete"]!.post!.requestBody as { content: Record<string, { schema: Schema }> }).content["application/json"]!.schema;
    body.properties.note = { type: "string" };
    body.required = [...(body.required ?? []), "note"];
    expect(breakingChanges(openapi, stricter).map((c) => c.where).join("\n")).toMatch(/complete\/post\/requestBody/);
  });

  test("a role an operation stops admitting fails", () => {
    const after = clone(openapi);
    const op = paths(after)["/tasks/{id}/complete"]!.post!;
    op["x-roles"] = (op["x-roles"] as string[]).filter((role) => role !== "agent");
    expect(breakingChanges(openapi, after).map((c) => c.description)).toContain("POST /tasks/{id}/complete no longer admits agent");
  });

  test("additive changes pass: a new endpoint, new response fields (optional or always there), a new optional body field", () => {
    const after = clone(openapi);
    paths(after)["/tasks/{id}/archive"] = { post: clone(paths(openapi)["/tasks/{id}/complete"]!.post!) };
    const task = schemaOf(after, "Task");
    task.properties.archivedAt = { type: ["string", "null"], format: "date-time" };
    task.properties.lane = { type: "string" };
    task.required = [...(task.required ?? []), "lane"];
    const body = (paths(after)["/tasks/{id}/complete"]!.post!.requestBody as { content: Record<string, { schema: Schema }> }).content["application/json"]!.schema;
    body.properties.note = { type: "string" };
    expect(breakingChanges(openapi, after)).toEqual([]);
  });

  test("MCP: a removed tool, a new required argument and a removed result field fail; a new tool and a new optional argument pass", () => {
    // Two tools stand for all (the rules are per tool), which keeps the five comparisons quick.
    const two = tools.filter((t) => t.name === "complete_task" || t.name === "get_task");
    const before = mcpAsOpenApi(two);
    const complete = two.find((t) => t.name === "complete_task")!;

    const additive = clone(two);
    additive.push({ ...clone(complete), name: "archive_task" });
    (additive.find((t) => t.name === "complete_task")!.inputSchema as unknown as Schema).properties.note = { type: "string" };
    expect(breakingChanges(before, mcpAsOpenApi(additive))).toEqual([]);

    expect(breakingChanges(before, mcpAsOpenApi(two.filter((t) => t.name !== "complete_task"))).map((c) => c.where))
      .toContain("/paths/~1tools~1complete_task/post");

    const required = clone(two);
    const input = required.find((t) => t.name === "complete_task")!.inputSchema as unknown as Schema;
    input.properties.note = { type: "string" };
    input.required = [...(input.required ?? []), "note"];
    expect(breakingChanges(before, mcpAsOpenApi(required))).not.toEqual([]);

    const narrower = clone(two);
    const output = narrower.find((t) => t.name === "get_task")!.outputSchema as unknown as { properties: { task: Schema } };
    delete output.properties.task.properties.version;
    output.properties.task.required = output.properties.task.required?.filter((key) => key !== "version");
    expect(breakingChanges(before, mcpAsOpenApi(narrower)).map((c) => c.where).join("\n")).toMatch(/get_task.*version/);
  });
});
