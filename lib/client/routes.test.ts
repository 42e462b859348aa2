import type { z } from "zod";
import { describe, expect, expectTypeOf, test } from "vitest";
import { endpoints, type eventObject, type taskObject } from "@/lib/http/endpoints";
import { clientRoutes, type Task, type TaskEvent } from "@/lib/client";

// The typed client's routes and wire types against the registry, without a server
// (the client against a real server: lib/client.test.ts).

/** Endpoints the client leaves to other tools: the OpenAPI document, the SSE stream, the Prometheus text. */
const NOT_JSON = ["openapi", "streamEvents", "metrics"];

describe("client routes", () => {
  test("every client route is an endpoint of the server, and every JSON endpoint has a client route", () => {
    const server = Object.values(endpoints).map((e) => `${e.method} ${e.path}`);
    const client = Object.values(clientRoutes).map((r) => `${r.method} ${r.path}`);
    for (const route of client) expect(server).toContain(route);
    const json = Object.values(endpoints).filter((e) => !NOT_JSON.includes(e.operationId));
    for (const e of json) expect(client).toContain(`${e.method} ${e.path}`);
  });

  test("the wire types are the server's", () => {
    // payload and progress.value are any JSON: unknown in the client, zod's JSON type on the server.
    expectTypeOf<Omit<Task, "payload" | "progress">>().toEqualTypeOf<Omit<z.infer<typeof taskObject>, "payload" | "progress">>();
    type Progress = NonNullable<z.infer<typeof taskObject>["progress"]>;
    expectTypeOf<keyof NonNullable<Task["progress"]>>().toEqualTypeOf<keyof Progress>();
    expectTypeOf<Omit<TaskEvent, "payload">>().toEqualTypeOf<Omit<z.infer<typeof eventObject>, "payload">>();
  });
});
