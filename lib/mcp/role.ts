import type { TokenRole } from "@/db/schema";
import { ClaimboardApiError, type ClaimboardClient } from "@/lib/client";
import { endpoints, type EndpointId } from "@/lib/http/endpoints";

/**
 * Over stdio the server knows the token, not its role, and the API has no "who am I".
 * The guard checks the role before it reads the body (lib/http/handler.ts), so a batch
 * claim of zero tasks — a body no role may send — answers 403 to an observer and 400 to
 * a token that may work, and claims nothing either way. "agent" here means "may write"
 * (agent or supervisor: the same tools). Null when the server cannot say now; an unknown
 * token throws, so the process can stop with a clear message.
 */
export async function probeRole(client: ClaimboardClient): Promise<"observer" | "agent" | null> {
  try {
    await client.claimBatch({ limit: 0 });
    return "agent";
  } catch (error) {
    if (!(error instanceof ClaimboardApiError) || error.code === "unauthorized") throw error;
    if (error.code === "forbidden") return "observer";
    if (error.code === "invalid_request") return "agent";
    return null;
  }
}

type Published = { paths?: Record<string, Record<string, { "x-roles"?: TokenRole[] | "public" }>> };

/**
 * The token roles each endpoint admits, as the API publishes them (GET /api/v1/openapi.json,
 * x-roles): over stdio the tools listed follow them, as /api/mcp's follow lib/http/access.ts.
 * An endpoint the document does not name is listed (the API still decides each call).
 */
export async function publishedRoles(baseUrl: string, fetcher: typeof fetch = fetch): Promise<(id: EndpointId) => TokenRole[] | "public"> {
  const response = await fetcher(new URL("/api/v1/openapi.json", baseUrl));
  if (!response.ok) throw new Error(`GET /api/v1/openapi.json answered ${response.status}`);
  const document = (await response.json()) as Published;
  return (id) => document.paths?.[endpoints[id].path]?.[endpoints[id].method.toLowerCase()]?.["x-roles"] ?? "public";
}
