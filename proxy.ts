import { NextResponse, type NextRequest } from "next/server";

// Every response but the build's static files passes here: the Content-Security-Policy
// (pages get a fresh nonce each, which Next.js reads from the request's CSP header and
// puts on its own scripts — https://nextjs.org/docs/app/guides/content-security-policy;
// every page of the app is dynamically rendered, so each one gets it) and HSTS when the
// request came over TLS. The other fixed headers are in next.config.ts.

/** Pages: scripts only with this response's nonce (and what they load), never eval. */
function pagePolicy(nonce: string, tls: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`,
    // React renders style attributes into the HTML; styles cannot run code.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(tls ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

/** JSON and the event stream are never documents to run or frame. */
const API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** HTTPS as the client saw it: the URL itself, or a trusted proxy's X-Forwarded-Proto (TRUST_PROXY=1). */
function overTls(request: NextRequest): boolean {
  if (request.nextUrl.protocol === "https:") return true;
  return process.env.TRUST_PROXY === "1" && request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}

function secure(response: NextResponse, policy: string, tls: boolean): NextResponse {
  response.headers.set("Content-Security-Policy", policy);
  if (tls) response.headers.set("Strict-Transport-Security", "max-age=63072000; includeSubDomains");
  return response;
}

export function proxy(request: NextRequest) {
  const tls = overTls(request);
  const { pathname } = request.nextUrl;
  if (pathname.startsWith("/api/")) {
    // A path with broken percent-encoding would otherwise fail inside Next.js, before any
    // route handler, as a plain-text 500. Answer it in API.md's error shape instead.
    try {
      decodeURIComponent(pathname);
    } catch {
      const refused = NextResponse.json(
        { error: { code: "invalid_request", message: "The request path is not valid percent-encoded UTF-8" } },
        { status: 400 },
      );
      return secure(refused, API_POLICY, tls);
    }
    return secure(NextResponse.next(), API_POLICY, tls);
  }
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const policy = pagePolicy(nonce, tls);
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set("Content-Security-Policy", policy);
  return secure(NextResponse.next({ request: { headers: requestHeaders } }), policy, tls);
}

// Everything except the build's immutable static files and the icon.
export const config = { matcher: ["/((?!_next/static|_next/image|favicon.ico).*)"] };
