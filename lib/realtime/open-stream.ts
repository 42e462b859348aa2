import "server-only";
import type { TokenPrincipal } from "@/lib/auth/tokens";
import { errorResponse } from "@/lib/http/errors";
import type { Cursor } from "./cursor";
import { currentGrant, STREAM_GRANT_CHECK_MS } from "./grant";
import type { Hub } from "./hub";
import { eventStream } from "./sse";
import { HELD_RETRY_SECONDS, takeHeldPlace } from "./held-places";
import type { StreamFilter } from "./subscriber";

/**
 * GET /api/v1/events for an authorised caller: a place under its cap of open streams
 * (429 rate_limited at the cap), then the stream, which gives the place back when it ends
 * and ends itself when the caller's grant is gone (re-checked every STREAM_GRANT_CHECK_MS).
 */
export async function openEventStream(hub: Hub, principal: TokenPrincipal, filter: StreamFilter, after: Cursor | null, request: Request): Promise<Response> {
  const place = takeHeldPlace("stream", principal.tokenId);
  if ("refused" in place) return errorResponse({ code: "rate_limited", message: place.refused, retryAfterSeconds: HELD_RETRY_SECONDS });
  const { release } = place;
  try {
    // The grant as it is now, which every re-check must still find (lib/realtime/grant.ts).
    const granted = await currentGrant(hub.db, principal);
    if (granted === null) {
      release(); // revoked or disabled since it was authorised, a moment ago
      return errorResponse({ code: "unauthorized", message: "The token or session is no longer valid" });
    }
    const stillGranted = async () => (await currentGrant(hub.db, principal)) === granted;
    // A person's stream (the browser's one per tab) hears when a token begins waiting; tokens' streams carry events only.
    const fleet = principal.tokenId.startsWith("session:");
    return eventStream(hub, filter, after, request.signal, { onClose: release, recheck: { everyMs: STREAM_GRANT_CHECK_MS, stillGranted }, fleet });
  } catch (error) {
    release();
    throw error;
  }
}
