import "server-only";
import { endpoints, type Endpoint, type EndpointId } from "./endpoints";
import { errorResponse } from "./errors";
import { handlers, type RouteHandler } from "./handlers";
import { withTransportSecurity } from "./transport";

type Handler = ((request: Request) => Promise<Response>) & { methodNotAllowed?: true };
type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";

/**
 * A route file's exports: the registry's handlers of the endpoints it serves (one path),
 * and `otherMethods` for the rest. Next.js needs a file per path, so each is one line:
 * `export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = route("listTasks", "createTask")`.
 */
export function route(...ids: EndpointId[]): Record<Method, RouteHandler> {
  const served: Endpoint[] = ids.map((id) => endpoints[id]);
  const paths = new Set(served.map((endpoint) => endpoint.path));
  if (paths.size !== 1) throw new Error(`route(${ids.join(", ")}): a route file serves one path, not ${[...paths].join(" and ")}`);
  if (new Set(served.map((endpoint) => endpoint.method)).size !== ids.length) throw new Error(`route(${ids.join(", ")}): two endpoints answer one method`);
  const methods: Record<Method, RouteHandler> = { ...otherMethods(...served) };
  for (const id of ids) methods[endpoints[id].method] = handlers[id];
  return methods;
}

/**
 * What a route file exports for the methods its path does not serve (Next.js would answer
 * those with an empty 405): the error envelope of docs/contract.md#errors, `method_not_allowed`, and `Allow` listing
 * what the path does serve — OPTIONS answers that list too. `route` takes the ones its
 * endpoints lack; app/api/mcp, no registry entry, takes its own.
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
