import { ClaimboardApiError, type ClaimboardClient } from "@/lib/client";

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
