// The two headers of API answers that depend on nothing but the request, shared by proxy.ts
// (pages, next-auth, malformed /api paths) and the /api/v1 route handlers, which the proxy
// does not run for: its per-request work was a fifth of an API call's server time
// (CHANGELOG.md). The API's Content-Security-Policy is a fixed header (next.config.ts).

/** JSON and the event stream are never documents to run or frame. */
export const API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export const HSTS = "max-age=63072000; includeSubDomains";

/**
 * HTTPS as the client saw it, per a trusted proxy's X-Forwarded-Proto (TRUST_PROXY=1).
 * `next start` itself speaks only HTTP, and request.nextUrl.protocol is derived from that
 * same header whoever sent it, so it is not consulted.
 */
export function overTls(headers: Headers): boolean {
  return process.env.TRUST_PROXY === "1" && headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}

/** HSTS on an API answer that was requested over TLS. */
export function withTransportSecurity(request: Request, response: Response): Response {
  if (overTls(request.headers)) response.headers.set("Strict-Transport-Security", HSTS);
  return response;
}
