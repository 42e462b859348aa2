import { readFileSync } from "node:fs";
import path from "node:path";
import { apiDiff, breaking, type Diff } from "api-smart-diff";

// The breaking-change check: api-smart-diff (a maintained OpenAPI / JSON Schema diff on npm,
// pure JavaScript, no binary) classifies every difference between the last release's
// document and today's; a breaking one fails unless contract/declared-breaking.json declares
// it. MCP tool schemas go through the same tool and the same rules: each tool becomes an
// OpenAPI operation (POST /tools/{name}, its input schema the request body, its output schema
// the 200 response), so a removed tool, a new required argument or a removed result field
// read as what they are to a client.

export const CONTRACT_DIR = path.resolve(import.meta.dirname, "../../contract");

/** One MCP tool as a client lists it: the contract part (descriptions and hints are not). */
export interface McpToolSchema {
  name: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

export interface BreakingChange {
  /** A JSON Pointer into the document where the change is (the id a declaration names). */
  where: string;
  description: string;
}

export interface Declaration {
  /** A JSON Pointer prefix: every breaking change at or under it is declared by this entry. */
  where?: string;
  /** What changes, where no pointer shows it (a `documented` entry). */
  change?: string;
  /** Why the change is made and what a client does about it. */
  reason: string;
}

export interface Declarations {
  /** The release the committed documents are (contract/openapi-v{baseline}.json, …). */
  baseline: string;
  /** The release these changes ship in. */
  release: string;
  openapi: Declaration[];
  mcp: Declaration[];
  /** Breaking changes no schema shows (event sequences, semantics): declared for the record. */
  documented: Declaration[];
}

export const readJson = <T>(file: string): T => JSON.parse(readFileSync(path.join(CONTRACT_DIR, file), "utf8")) as T;

const pointer = (segments: readonly (string | number)[]) =>
  "/" + segments.map((s) => String(s).replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

type Operation = { "x-roles"?: string[] | "public" };
type Doc = { paths?: Record<string, Record<string, Operation>> };

/**
 * A role an operation no longer admits is breaking for every client holding that role; the
 * diff tool does not read the `x-roles` extension, so this rule is the project's own.
 */
function narrowedRoles(before: Doc, after: Doc): BreakingChange[] {
  const found: BreakingChange[] = [];
  for (const [route, item] of Object.entries(before.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      const now = after.paths?.[route]?.[method]?.["x-roles"];
      const was = op["x-roles"];
      if (!now || !was || now === "public") continue;
      const lost = was === "public" ? ["public"] : was.filter((role) => !now.includes(role));
      for (const role of lost) {
        found.push({ where: pointer(["paths", route, method, "x-roles"]), description: `${method.toUpperCase()} ${route} no longer admits ${role}` });
      }
    }
  }
  return found;
}

/** Every breaking difference from `before` (the release) to `after` (today), by the diff tool's rules. */
export function breakingChanges(before: unknown, after: unknown): BreakingChange[] {
  const diffs: Diff[] = apiDiff(before, after);
  const tool = diffs
    // A named schema is judged where it is used: the tool resolves every $ref into each
    // operation, and reads a request's and a response's changes each its own way. Under
    // components/schemas it has no direction, and a field added to a response would read as
    // a new required input.
    .filter((d) => d.type === breaking && !(d.path[0] === "components" && d.path[1] === "schemas"))
    .map((d) => ({ where: pointer(d.path), description: `${d.action}: ${d.description ?? ""}`.replace(/\x1b\[[0-9;]*m/g, "") }));
  return [...tool, ...narrowedRoles(before as Doc, after as Doc)];
}

/** The MCP tools as an OpenAPI document, so the same tool and rules compare them. */
export function mcpAsOpenApi(tools: readonly McpToolSchema[]) {
  const paths: Record<string, unknown> = {};
  for (const tool of tools) {
    paths[`/tools/${tool.name}`] = {
      post: {
        operationId: tool.name,
        requestBody: { required: true, content: { "application/json": { schema: tool.inputSchema } } },
        responses: {
          "200": {
            description: "The tool's structured result",
            ...(tool.outputSchema ? { content: { "application/json": { schema: tool.outputSchema } } } : {}),
          },
        },
      },
    };
  }
  return { openapi: "3.1.0", info: { title: "Claimboard MCP tools", version: "contract" }, paths };
}

/** The breaking changes no declaration covers (a declaration covers its pointer and everything under it). */
export function undeclared(changes: readonly BreakingChange[], declared: readonly Declaration[]): BreakingChange[] {
  const prefixes = declared.flatMap((d) => (d.where ? [d.where] : []));
  return changes.filter((c) => !prefixes.some((p) => c.where === p || c.where.startsWith(p + "/")));
}

/** The declarations that cover nothing any more (stale entries are removed, not kept "just in case"). */
export function unused(changes: readonly BreakingChange[], declared: readonly Declaration[]): Declaration[] {
  return declared.filter((d) => d.where && !changes.some((c) => c.where === d.where || c.where.startsWith(d.where + "/")));
}
