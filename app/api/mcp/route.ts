import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ClaimboardClient } from "@/lib/client";
import { readJsonBody } from "@/lib/http/body";
import { rolesOf } from "@/lib/http/access";
import { endpoints, INSTANCE_HEADER, type Endpoint } from "@/lib/http/endpoints";
import { errorResponse } from "@/lib/http/errors";
import { handle } from "@/lib/http/handler";
import { otherMethods } from "@/lib/http/routes";
import { withTransportSecurity } from "@/lib/http/transport";
import { limits, take, tokenKey } from "@/lib/http/rate-limit";
import { hostProblem } from "@/lib/mcp/allowed-hosts";
import { issuer, resourceMetadataUrl } from "@/lib/oauth/config";
import { createMcpServer } from "@/lib/mcp/server";
import { EVERYONE, tokenRoles } from "@/lib/tasks/model";
import { inProcessFetch } from "./in-process";

// POST /api/mcp: the MCP server over Streamable HTTP, stateless (a server per request, JSON
// answers, no session). The caller passes the API's own guard — the same bearer tokens,
// failed-auth throttle, per-token rate limit and roles (every role may connect; the tools
// listed follow the role) — and each tool call then runs the API's route handler in-process.

const mcp: Endpoint = {
  operationId: "mcp", method: "POST", path: "/api/mcp", summary: "Model Context Protocol (Streamable HTTP)",
  roles: tokenRoles(EVERYONE), success: { status: 200, description: "JSON-RPC answers" }, errors: [400, 413],
};

type RouteHandler = ((request: Request, context: never) => Promise<Response>) & { methodNotAllowed?: true };

/**
 * DNS rebinding: a Host or Origin that is not this deployment's is refused before anything
 * else runs (lib/mcp/allowed-hosts.ts); a 401 says where to sign in by OAuth.
 */
function ownHostOnly<H extends RouteHandler>(handler: H): H {
  const guarded = (async (request: Request, context: never) => {
    const problem = hostProblem(request.headers);
    if (problem) return withTransportSecurity(request, errorResponse({ code: "forbidden", message: problem }));
    const response = await handler(request, context);
    // RFC 9728 §5.1: a 401 names the resource's metadata, where an MCP client finds how to sign in;
    // so does the failed-authentication throttle's 429 (lib/http/failed-auth.ts).
    if (response.status === 401 || (response.status === 429 && response.headers.has("WWW-Authenticate"))) {
      response.headers.set("WWW-Authenticate", `Bearer realm="claimboard", resource_metadata="${resourceMetadataUrl(issuer(request))}"`);
    }
    return response;
  }) as H;
  if (handler.methodNotAllowed) guarded.methodNotAllowed = true;
  return guarded;
}

export const POST = ownHostOnly(handle(mcp, async ({ request, principal, db }) => {
  const read = await readJsonBody(request);
  if (!read.ok) return errorResponse(read.error);
  // A JSON-RPC batch is as many calls: each past the first takes its own share of the limit.
  for (let extra = Array.isArray(read.value) ? read.value.length - 1 : 0; extra > 0; extra--) {
    const wait = await take(db, tokenKey(principal!.tokenId), limits().perToken);
    if (wait > 0) return errorResponse({ code: "rate_limited", message: "Rate limit exceeded for this token", retryAfterSeconds: wait });
  }
  const server = createMcpServer({
    client: new ClaimboardClient({
      baseUrl: new URL(request.url).origin,
      fetch: inProcessFetch(principal!),
      // The caller's process, as it named itself; never this server's own host:pid.
      instance: request.headers.get(INSTANCE_HEADER) ?? "",
    }),
    role: principal!.role,
    rolesOf: (id) => rolesOf(endpoints[id]),
    renewFor: principal!.actor.id,
  });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(request, { parsedBody: read.value });
    response.headers.set("Cache-Control", "no-store");
    return response;
  } finally {
    await server.close();
  }
}));

// Stateless: no GET stream and no session to DELETE — the API's 405, which MCP clients
// read as "POST only" (the Streamable HTTP transport allows a 405 for GET).
const refused = otherMethods(mcp);
export const GET = ownHostOnly(refused.GET);
export const PUT = ownHostOnly(refused.PUT);
export const PATCH = ownHostOnly(refused.PATCH);
export const DELETE = ownHostOnly(refused.DELETE);
export const OPTIONS = ownHostOnly(refused.OPTIONS);
