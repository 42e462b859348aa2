import { getDatabase } from "@/db";
import { readBodyBytes } from "@/lib/http/body";
import { withTransportSecurity } from "@/lib/http/transport";
import { fail, oauthErrorResponse } from "@/lib/oauth/errors";
import { revokeByClient } from "@/lib/oauth/revoke";

// POST /api/oauth/revoke (RFC 7009): form-encoded `token` (a refresh or an access token)
// and `client_id`; 200 with an empty body whether or not the token was live.

export async function POST(request: Request): Promise<Response> {
  const answer = (response: Response) => withTransportSecurity(request, response);
  if (!(request.headers.get("content-type") ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    return answer(oauthErrorResponse(fail("invalid_request", "The revocation request must be application/x-www-form-urlencoded")));
  }
  const bytes = await readBodyBytes(request, 16 * 1024);
  if (!bytes) return answer(oauthErrorResponse(fail("invalid_request", "The request body is too large")));
  const text = new TextDecoder().decode(bytes);
  const form = new URLSearchParams(text);
  const token = form.get("token");
  const clientId = form.get("client_id");
  if (!token || !clientId) return answer(oauthErrorResponse(fail("invalid_request", "token and client_id are required")));
  const outcome = await revokeByClient(getDatabase().db, clientId, token);
  if (!outcome.ok) return answer(oauthErrorResponse(outcome.failure));
  return answer(new Response(null, { status: 200, headers: { "Cache-Control": "no-store" } }));
}
