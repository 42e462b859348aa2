import { NextResponse, type NextRequest } from "next/server";
import { actionBodyProblem } from "@/lib/http/action-body";
import { STATUS_OF } from "@/lib/http/errors";
import { API_POLICY, HSTS, overTls } from "@/lib/http/transport";

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

function secure(response: NextResponse, policy: string, tls: boolean): NextResponse {
  response.headers.set("Content-Security-Policy", policy);
  if (tls) response.headers.set("Strict-Transport-Security", HSTS);
  return response;
}

/**
 * A write to a page path (a server action, with or without JavaScript) whose Origin is
 * another site's. Next.js would refuse it too, but as a 500 with an error in the log;
 * this answers 403 before anything runs. Same comparison as Next.js: Origin's host against
 * X-Forwarded-Host, else Host. No Origin (curl, very old browsers) is left to Next.js.
 */
function crossOriginWrite(request: NextRequest): boolean {
  if (request.method === "GET" || request.method === "HEAD") return false;
  const origin = request.headers.get("origin");
  if (origin === null) return false;
  let originHost: string;
  try {
    originHost = origin === "null" ? "null" : new URL(origin).host;
  } catch {
    return true;
  }
  const host = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim() || request.headers.get("host");
  return originHost !== host;
}

export async function proxy(request: NextRequest) {
  const tls = overTls(request.headers);
  const { pathname } = request.nextUrl;
  if (pathname.startsWith("/api/")) {
    // A path with broken percent-encoding would otherwise fail inside Next.js, before any
    // route handler, as a plain-text 500. Answer it in the error envelope of docs/contract.md#errors instead.
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
  if (crossOriginWrite(request)) {
    const refused = NextResponse.json({ error: { code: "forbidden", message: "Cross-origin writes are refused" } }, { status: 403 });
    return secure(refused, API_POLICY, tls);
  }
  if (request.method === "POST" && request.headers.has("next-action")) {
    // Next.js hands the proxy a copy of the body; the action still reads the original.
    const problem = actionBodyProblem(request.headers.get("content-type"), await request.text());
    if (problem) return secure(NextResponse.json({ error: problem }, { status: STATUS_OF[problem.code] }), API_POLICY, tls);
  }
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const policy = pagePolicy(nonce, tls);
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set("Content-Security-Policy", policy);
  return secure(NextResponse.next({ request: { headers: requestHeaders } }), policy, tls);
}

// Everything except the build's immutable static files, the icon, the agent API, the MCP
// endpoint and the OAuth token and revoke endpoints — whose route handlers set their own
// headers (lib/http/transport.ts, next.config.ts), and whose bodies the proxy would otherwise
// have Next read whole (up to 10 MB) before their own size check — but for an API path with a
// percent sign, which may be malformed (answered above).
export const config = {
  matcher: ["/((?!_next/static|_next/image|favicon.ico|api/v1/|api/mcp|api/oauth/token|api/oauth/revoke).*)", "/api/v1/:path(.*%.*)"],
};
