import "server-only";
import type { z } from "zod";
import type { Operation } from "@/lib/tasks/engine";
import type { Task } from "@/lib/tasks/types";
import type { Endpoint } from "./endpoints";
import { errorResponse } from "./errors";
import { handle, respond } from "./handler";
import { withTransportSecurity } from "./transport";

/** POST /tasks/{id}/<verb>: the body plus the path's task id, one engine call, `{task}` back. */
export function taskCallRoute<S extends z.ZodType>(endpoint: Endpoint, op: Operation<S, Task>) {
  return handle(endpoint, async ({ run, body, params }) =>
    respond(await run(op, { ...(body as object), taskId: params.id }), (task) => ({ task })),
  );
}

type Handler = ((request: Request) => Promise<Response>) & { methodNotAllowed?: true };
type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";

/**
 * What a route file exports for the methods its path does not serve (Next.js would answer
 * those with an empty 405): API.md's error shape, `method_not_allowed`, and `Allow` listing
 * what the path does serve — OPTIONS answers that list too. Each route file takes the ones
 * it lacks: `export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.claimNext)`.
 * Marked, so the registry checks tell them from the endpoints.
 */
export function otherMethods(...served: Endpoint[]): Record<Method, Handler> {
  const methods = [...new Set(served.map((endpoint) => endpoint.method))];
  const allow = [...methods, ...(methods.includes("GET") ? ["HEAD"] : []), "OPTIONS"].join(", ");
  const refuse: Handler = async (request) => {
    const response = errorResponse({
      code: "method_not_allowed",
      message: `${new URL(request.url).pathname} does not answer ${request.method}; it answers ${methods.join(" and ")}`,
    });
    response.headers.set("Allow", allow);
    return withTransportSecurity(request, response);
  };
  refuse.methodNotAllowed = true;
  const options: Handler = async (request) => withTransportSecurity(request, new Response(null, { status: 204, headers: { Allow: allow } }));
  options.methodNotAllowed = true;
  return { GET: refuse, POST: refuse, PUT: refuse, PATCH: refuse, DELETE: refuse, OPTIONS: options };
}
