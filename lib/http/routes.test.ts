import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { Wire } from "@/components/task/wire";
import type { Task as EngineTask } from "@/lib/tasks/core/types";
import type { TaskEvent as EngineEvent } from "@/lib/tasks/reads/queries";
import { clientRoutes } from "@/lib/client";
import { endpoints, type EndpointId } from "./endpoints";
import { handlers } from "./handlers";
import { route } from "./routes";
import type { Task, TaskEvent } from "./wire";

// The registry is the one list of endpoints: each has exactly one route file, one line
// naming it; each has a handler; the typed client's routes are its paths.

const API_ROOT = path.resolve(import.meta.dirname, "../../app/api/v1");
const ids = Object.keys(endpoints) as EndpointId[];
const ROUTE_LINE = /^import \{ route \} from "@\/lib\/http\/routes";\n\nexport const \{ GET, POST, PUT, PATCH, DELETE, OPTIONS \} = route\(((?:"\w+"(?:, )?)+)\);\n$/;

/** Every route file under app/api/v1 but the catch-all, with its folder as an OpenAPI path. */
const files = (readdirSync(API_ROOT, { recursive: true, encoding: "utf8" }) as string[])
  .filter((file) => path.basename(file) === "route.ts" && path.dirname(file) !== "[...unknown]")
  .map((file) => ({
    file,
    path: "/" + path.dirname(file).split(path.sep).map((segment) => segment.replace(/^\[(\w+)\]$/, "{$1}")).join("/"),
    source: readFileSync(path.join(API_ROOT, file), "utf8"),
  }));

describe("the route files are the registry's", () => {
  it("each is one line, route(...) of endpoints at its own path", () => {
    for (const { file, path: at, source } of files) {
      const named = ROUTE_LINE.exec(source)?.[1];
      expect(named, `${file} is not the one route(...) line`).toBeDefined();
      for (const id of JSON.parse(`[${named}]`) as string[]) {
        expect(ids, file).toContain(id);
        expect(endpoints[id as EndpointId].path, `${file} names ${id}`).toBe(at);
      }
    }
  });

  it("every endpoint is named by exactly one route file", () => {
    const named = files.flatMap(({ source }) => JSON.parse(`[${ROUTE_LINE.exec(source)?.[1] ?? ""}]`) as string[]);
    expect(named.sort()).toEqual([...ids].sort());
  });

  it("every endpoint has a handler, served for its method; the others answer 405", () => {
    expect(Object.keys(handlers).sort()).toEqual([...ids].sort());
    const served = route("getTask", "editTask");
    expect(served.GET).toBe(handlers.getTask);
    expect(served.PATCH).toBe(handlers.editTask);
    expect((served.POST as { methodNotAllowed?: true }).methodNotAllowed).toBe(true);
  });

  it("refuses a route file of two paths, or two endpoints of one method", () => {
    expect(() => route("getTask", "claimTask")).toThrow(/one path/);
    expect(() => route("getTask", "getTask")).toThrow(/one method/);
  });

  it("the typed client's routes are registry endpoints", () => {
    for (const [name, { method, path: at }] of Object.entries(clientRoutes)) {
      expect(Object.values(endpoints).some((e) => e.method === method && e.path === at), name).toBe(true);
    }
  });

  it("the engine's task and event, as JSON, are the wire types", () => {
    expectTypeOf<Wire<EngineTask>>().toEqualTypeOf<Task>();
    // The engine's event types its payload by its type (event-payloads.ts); the wire's is any JSON.
    expectTypeOf<Wire<EngineEvent>>().toExtend<TaskEvent>();
    expectTypeOf<keyof Wire<EngineEvent>>().toEqualTypeOf<keyof TaskEvent>();
  });
});
