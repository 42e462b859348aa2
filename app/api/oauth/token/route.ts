import { getDatabase } from "@/db";
import { readBodyBytes } from "@/lib/http/body";
import { withTransportSecurity } from "@/lib/http/transport";
import { fail, oauthErrorResponse } from "@/lib/oauth/errors";
import { exchangeCode, refreshGrant } from "@/lib/oauth/grants";

// POST /api/oauth/token (RFC 6749 §3.2): form-encoded, public clients (client_id in the
// body, no secret), grants authorization_code (with PKCE S256) and refresh_token. Every
// refusal is an OAuth error of the RFC's shape; nothing is issued with one.

const MAX_BODY = 16 * 1024;

export async function POST(request: Request): Promise<Response> {
  const answer = (response: Response) => withTransportSecurity(request, response);
  if (!(request.headers.get("content-type") ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    return answer(oauthErrorResponse(fail("invalid_request", "The token request must be application/x-www-form-urlencoded")));
  }
  const bytes = await readBodyBytes(request, MAX_BODY);
  if (!bytes) return answer(oauthErrorResponse(fail("invalid_request", "The request body is too large")));
  const text = new TextDecoder().decode(bytes);
  const form = new URLSearchParams(text);
  // RFC 6749 §3.2: a parameter sent twice is an invalid request.
  const keys = [...form.keys()];
  if (new Set(keys).size !== keys.length) return answer(oauthErrorResponse(fail("invalid_request", "A parameter was sent more than once")));
  if (request.headers.get("authorization")) {
    return answer(oauthErrorResponse(fail("invalid_client", "Clients here are public: send client_id in the body and no credentials")));
  }
  const clientId = form.get("client_id");
  if (!clientId) return answer(oauthErrorResponse(fail("invalid_request", "client_id is required")));
  const { db } = getDatabase();
  const grant = form.get("grant_type");
  let outcome;
  if (grant === "authorization_code") {
    const code = form.get("code");
    if (!code) return answer(oauthErrorResponse(fail("invalid_request", "code is required")));
    outcome = await exchangeCode(db, { clientId, code, redirectUri: form.get("redirect_uri"), codeVerifier: form.get("code_verifier"), resource: form.get("resource") });
  } else if (grant === "refresh_token") {
    const refreshToken = form.get("refresh_token");
    if (!refreshToken) return answer(oauthErrorResponse(fail("invalid_request", "refresh_token is required")));
    outcome = await refreshGrant(db, { clientId, refreshToken, scope: form.get("scope") });
  } else {
    return answer(oauthErrorResponse(fail(grant ? "unsupported_grant_type" : "invalid_request", grant ? `grant_type ${grant} is not offered` : "grant_type is required")));
  }
  if (!outcome.ok) return answer(oauthErrorResponse(outcome.failure));
  return answer(Response.json(outcome.tokens, { headers: { "Cache-Control": "no-store", Pragma: "no-cache" } }));
}
