import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { startServer, type TestServer } from "@/test/server";
import { rolesOf } from "./access";
import { endpoints, type Endpoint } from "./endpoints";
import { buildOpenApiDocument, type DeepReadonly, type JsonSchema, type OpenApiOperation } from "./openapi";

const API_ROOT = path.resolve(import.meta.dirname, "../../app/api/v1");
const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** Every app/api/v1/**\/route.ts, as its OpenAPI path (`[id]` → `{id}`) and file. */
function discoverRoutes(root = API_ROOT): { path: string; file: string }[] {
  return (readdirSync(root, { recursive: true, encoding: "utf8" }) as string[])
    .filter((file) => path.basename(file) === "route.ts")
    // The top-level catch-all only answers not_found for paths no endpoint has.
    .filter((file) => path.dirname(file) !== "[...unknown]")
    .map((file) => {
      const segments = path
        .dirname(file)
        .split(path.sep)
        .filter((segment) => segment !== "." && !/^\(.*\)$/.test(segment)) // route groups add no segment
        .map((segment) => {
          if (segment.startsWith("[...") || segment.startsWith("[[")) throw new Error(`catch-all route ${file}: teach this test its OpenAPI form`);
          return segment.replace(/^\[(\w+)\]$/, "{$1}");
        });
      return { path: "/" + segments.join("/"), file: path.join(root, file) };
    })
    .sort((a, b) => a.path.localeCompare(b.path));
}

const doc = buildOpenApiDocument();
const operations = Object.entries(doc.paths).flatMap(([p, item]) =>
  Object.entries(item).map(([method, op]) => ({ path: p, method: method.toUpperCase(), op })),
);
const registry = Object.values(endpoints) as Endpoint[];
const opOf = (endpoint: Endpoint): DeepReadonly<OpenApiOperation> => doc.paths[endpoint.path]![endpoint.method.toLowerCase()]!;

/** Every { $ref } and every object key in the document, with where it sits. */
function walk(node: unknown, visit: (key: string, value: unknown, at: string) => void, at = "#") {
  if (Array.isArray(node)) node.forEach((item, i) => walk(item, visit, `${at}/${i}`));
  else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      visit(key, value, at);
      walk(value, visit, `${at}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`);
    }
  }
}

function resolvePointer(ref: string): unknown {
  return ref
    .slice(2)
    .split("/")
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce<unknown>((node, part) => (node && typeof node === "object" ? (node as Record<string, unknown>)[part] : undefined), doc);
}

describe("the OpenAPI document and the route files agree", () => {
  const routes = discoverRoutes();

  it("derives OpenAPI paths from folders", () => {
    const root = mkdtempSync(path.join(tmpdir(), "routes-"));
    try {
      for (const dir of ["", "tasks/[id]/start", "(group)/claims", "tasks/[id]/notes"]) {
        mkdirSync(path.join(root, dir), { recursive: true });
        writeFileSync(path.join(root, dir, dir.endsWith("notes") ? "page.tsx" : "route.ts"), "");
      }
      expect(discoverRoutes(root).map((r) => r.path)).toEqual(["/", "/claims", "/tasks/{id}/start"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("finds the route files", () => {
    expect(routes.map((r) => r.path)).toEqual(expect.arrayContaining(["/tasks", "/tasks/{id}/claim", "/openapi.json"]));
  });

  it("documents every exported handler of every route file, and nothing else", async () => {
    const implemented: string[] = [];
    for (const route of routes) {
      const mod = (await import(pathToFileURL(route.file).href)) as Record<string, unknown>;
      // otherMethods(): the 405s for what the path does not serve, not endpoints.
      const methods = Object.keys(mod).filter(
        (name) => HTTP_METHODS.includes(name) && !(mod[name] as { methodNotAllowed?: true }).methodNotAllowed,
      );
      expect(methods, `${route.file} exports no HTTP method`).not.toEqual([]);
      for (const method of methods) {
        expect(typeof mod[method], `${route.file} ${method}`).toBe("function");
        implemented.push(`${method} ${route.path}`);
      }
    }
    const documented = operations.map(({ method, path: p }) => `${method} ${p}`);
    const undocumented = implemented.filter((route) => !documented.includes(route));
    const unimplemented = documented.filter((op) => !implemented.includes(op));
    expect({ undocumented, unimplemented }).toEqual({ undocumented: [], unimplemented: [] });
  });

  it("has one operation per registry entry", () => {
    expect(operations.map(({ op }) => op.operationId).sort()).toEqual(registry.map((e) => e.operationId).sort());
  });
});

describe("the OpenAPI document is well formed", () => {
  it("is OpenAPI 3.1.0 with the agreed header", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info).toMatchObject({ title: "Claimboard agent API", version: "1.2", license: { name: expect.any(String) } });
    expect(doc.servers).toEqual([{ url: "/api/v1" }]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(["Task", "TaskEvent", "Error"]));
  });

  it("has unique operationIds", () => {
    const ids = operations.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("resolves every $ref inside itself, with no $defs and no $schema left", () => {
    const refs: string[] = [];
    walk(doc, (key, value, at) => {
      expect(key, `at ${at}`).not.toBe("$defs");
      expect(key, `at ${at}`).not.toBe("$schema");
      if (key === "$ref") refs.push(value as string);
    });
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(resolvePointer(ref), ref).toBeTypeOf("object");
    }
  });

  it("is the same on every call and on a fresh build", async () => {
    expect(buildOpenApiDocument()).toBe(doc);
    expect(Object.isFrozen(doc.paths)).toBe(true);
    vi.resetModules();
    const fresh = (await import("./openapi")).buildOpenApiDocument();
    expect(fresh).not.toBe(doc);
    expect(JSON.stringify(fresh)).toBe(JSON.stringify(doc));
  });

  it("lists the error table with a status for every code", () => {
    const codes = doc["x-error-codes"].map((row) => row.code);
    expect(codes).toEqual(expect.arrayContaining(["invalid_request", "already_claimed", "busy", "payload_too_large", "rate_limited"]));
    expect(doc["x-error-codes"].find((row) => row.code === "version_conflict")?.status).toBe(409);
    expect(doc.info.description).toContain("| 409 | `check_required` |");
  });
});

describe("each operation matches its registry entry", () => {
  it.each(registry.map((e) => [e.operationId, e] as const))("%s", (_id, endpoint) => {
    const op = opOf(endpoint);
    const isPublic = rolesOf(endpoint) === "public";
    expect(op.security).toEqual(isPublic ? [] : endpoint.session ? [{ bearerAuth: [] }, { sessionCookie: [] }] : [{ bearerAuth: [] }]);
    for (const requirement of op.security) for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes).toHaveProperty(scheme);
    expect(op["x-roles"]).toEqual(rolesOf(endpoint));
    const success = op.responses[endpoint.success.status];
    expect(success).toBeDefined();
    if (endpoint.success.schema || endpoint.success.contentType) {
      expect(Object.keys(success!.content ?? {})).toEqual([endpoint.success.contentType ?? "application/json"]);
    }

    const statuses = Object.keys(op.responses).map(Number);
    for (const status of [401, 403, 429, 503]) {
      if (isPublic && status !== 503) expect(statuses).not.toContain(status);
      if (!isPublic) expect(op.responses[status]?.content?.["application/json"]?.schema).toEqual({ $ref: "#/components/schemas/Error" });
    }
    for (const status of endpoint.errors) {
      expect(op.responses[status]?.content?.["application/json"]?.schema).toEqual({ $ref: "#/components/schemas/Error" });
    }

    const pathParams = [...endpoint.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    expect(op.parameters?.filter((p) => p.in === "path").map((p) => p.name) ?? []).toEqual(pathParams);

    const queryParams = op.parameters?.filter((p) => p.in === "query") ?? [];
    if (endpoint.query) {
      const shape = (endpoint.query as z.ZodObject).shape;
      expect(queryParams.map((p) => p.name)).toEqual(Object.keys(shape));
      for (const p of queryParams) expect(p.required, p.name).toBe(!shape[p.name]!.safeParse(undefined).success);
    } else {
      expect(queryParams).toEqual([]);
    }

    if (!endpoint.body) {
      expect(op.requestBody).toBeUndefined();
      return;
    }
    const schema = op.requestBody!.content["application/json"]!.schema as JsonSchema & { properties: Record<string, unknown>; required?: string[] };
    expect(schema.additionalProperties).toBe(false);
    const unknown = endpoint.body.safeParse({ surelyNotAField: 1 });
    expect(unknown.success).toBe(false);
    expect(unknown.error!.issues.some((issue) => issue.code === "unrecognized_keys")).toBe(true);

    const shape = (endpoint.body as z.ZodObject).shape;
    expect(Object.keys(schema.properties)).toEqual(Object.keys(shape));
    const requiredByZod = Object.keys(shape).filter((key) => !shape[key]!.safeParse(undefined).success);
    expect([...(schema.required ?? [])].sort()).toEqual(requiredByZod.sort());
    expect(op.requestBody!.required).toBe(requiredByZod.length > 0);
  });

  it("names the fields an agent must send", () => {
    const required = (e: Endpoint) => (opOf(e).requestBody?.content["application/json"]?.schema.required as readonly string[] | undefined) ?? [];
    expect(required(endpoints.claimTask)).toEqual(["version"]);
    expect(required(endpoints.startTask)).toEqual(["version"]);
    expect([...required(endpoints.failTask)].sort()).toEqual(["reason", "version"]);
    expect(required(endpoints.createTask)).toEqual(["title"]);
    expect(required(endpoints.claimBatch)).toEqual(["limit"]);
    expect(required(endpoints.claimNext)).toEqual([]);
  });

  it("documents claimNext's 204 without a body, and health's 503", () => {
    expect(opOf(endpoints.claimNext).responses["204"]).toEqual({ description: expect.any(String) });
    const down = opOf(endpoints.health).responses["503"];
    expect(down?.content?.["application/json"]?.schema).toEqual(opOf(endpoints.health).responses["200"]?.content?.["application/json"]?.schema);
  });

  it("states limits from the zod schemas", () => {
    const body = opOf(endpoints.claimNext).requestBody!.content["application/json"]!.schema as { properties: Record<string, JsonSchema> };
    expect(body.properties.leaseSeconds).toMatchObject({ type: "integer", minimum: 5, maximum: 3600 });
  });
});

describe("GET /api/v1/openapi.json over HTTP", () => {
  let db: TestDatabase;
  let server: TestServer;

  beforeAll(async () => {
    db = await freshDatabase();
    server = await startServer(db.url);
  });
  afterAll(async () => {
    await server?.stop();
    await db?.close();
  });

  it("answers 200 with the document, no token needed, cacheable for a minute", async () => {
    const response = await fetch(`${server.url}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("cache-control")).toBe("public, max-age=60");
    expect(await response.json()).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });
});
