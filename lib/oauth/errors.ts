// OAuth errors in the RFC's shape (RFC 6749 §5.2, RFC 7591 §3.2.2): `{error,
// error_description}`, 400 (401 for invalid_client, 429 when throttled), never cached.
// The codes are RFC 6749's, RFC 7591's and RFC 8707's (invalid_target).

export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "invalid_target"
  | "invalid_client_metadata"
  | "invalid_redirect_uri"
  | "access_denied"
  | "too_many_requests";

export interface OAuthFailure {
  error: OAuthErrorCode;
  description: string;
}

export const fail = (error: OAuthErrorCode, description: string): OAuthFailure => ({ error, description });

export function oauthErrorResponse(failure: OAuthFailure, retryAfter?: number): Response {
  const status = failure.error === "invalid_client" ? 401 : failure.error === "too_many_requests" ? 429 : 400;
  const headers: Record<string, string> = { "Cache-Control": "no-store", Pragma: "no-cache" };
  if (retryAfter !== undefined) headers["Retry-After"] = String(retryAfter);
  return Response.json({ error: failure.error, error_description: failure.description }, { status, headers });
}
