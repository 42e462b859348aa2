import "server-only";
import type { TokenPrincipal } from "@/lib/auth/tokens";
import { endpoints, type EndpointId } from "@/lib/http/endpoints";
import { asInProcessCall } from "@/lib/http/handler";
import { handlers } from "@/lib/http/handlers";
import { errorResponse } from "@/lib/http/errors";

// The typed client's fetch for /api/mcp: each request goes straight to the registry's
// handler for its endpoint, in this process — no socket, the same guard, validation and
// engine call as over HTTP — as the MCP request's already-authenticated caller.

const escape = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, "\\$&");

/** Every endpoint, a path without parameters first (as Next.js routes): /tasks/counts is not /tasks/{id}. */
const routes = (Object.keys(endpoints) as EndpointId[])
  .map((id) => ({
    method: endpoints[id].method,
    params: endpoints[id].path.split("{").length - 1,
    pattern: new RegExp(`^/api/v1${escape(endpoints[id].path).replace(/\{(\w+)\}/g, "(?<$1>[^/]+)")}$`),
    handler: handlers[id],
  }))
  .sort((a, b) => a.params - b.params);

export function inProcessFetch(principal: TokenPrincipal): typeof fetch {
  return async (input, init) => {
    const request = asInProcessCall(new Request(input, init), principal);
    const { pathname } = new URL(request.url);
    for (const route of routes) {
      const match = route.method === request.method ? route.pattern.exec(pathname) : null;
      if (!match) continue;
      const params = Object.fromEntries(Object.entries(match.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]));
      return route.handler(request, { params: Promise.resolve(params) });
    }
    return errorResponse({ code: "not_found", message: `No endpoint ${request.method} ${pathname}` });
  };
}
