import { createHash } from "node:crypto";
import { getDatabase } from "@/db";
import { readJsonBody } from "@/lib/http/body";
import { clientAddress, UNKNOWN_ADDRESS } from "@/lib/http/client-address";
import { limits, take } from "@/lib/http/rate-limit";
import { withTransportSecurity } from "@/lib/http/transport";
import { registerClient, validateRegistration } from "@/lib/oauth/clients";
import { fail, oauthErrorResponse } from "@/lib/oauth/errors";

// POST /api/oauth/register: dynamic client registration (RFC 7591), open to anyone as the
// MCP specification expects; throttled like failed authentications, since each registration
// writes a row: per client address behind a trusted proxy, else per set of redirect URIs — so
// one caller's flood of registrations throttles that caller's clients, not everyone's.
// Registering grants nothing: a person still has to approve the client on the consent page.

function registrationKey(request: Request, redirectUris: string[]): string {
  const address = clientAddress((name) => request.headers.get(name));
  if (address !== UNKNOWN_ADDRESS) return `oauth-register:${address}`;
  return `oauth-register:redirects:${createHash("sha256").update([...redirectUris].sort().join("\n")).digest("hex").slice(0, 32)}`;
}

export async function POST(request: Request): Promise<Response> {
  const { db } = getDatabase();
  const read = await readJsonBody(request);
  if (!read.ok) return withTransportSecurity(request, oauthErrorResponse(fail("invalid_client_metadata", read.error.message)));
  const valid = validateRegistration(read.value);
  if (!valid.ok) return withTransportSecurity(request, oauthErrorResponse(valid.failure));
  const wait = await take(db, registrationKey(request, valid.client.redirect_uris), limits().failedAuth);
  if (wait > 0) return withTransportSecurity(request, oauthErrorResponse(fail("too_many_requests", "Too many registrations; slow down"), wait));
  const client = await registerClient(db, valid.client);
  return withTransportSecurity(request, Response.json(client, { status: 201, headers: { "Cache-Control": "no-store", Pragma: "no-cache" } }));
}
