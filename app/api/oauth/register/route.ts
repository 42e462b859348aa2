import { getDatabase } from "@/db";
import { readJsonBody } from "@/lib/http/body";
import { clientAddress } from "@/lib/http/client-address";
import { limits, take } from "@/lib/http/rate-limit";
import { withTransportSecurity } from "@/lib/http/transport";
import { registerClient, validateRegistration } from "@/lib/oauth/clients";
import { fail, oauthErrorResponse } from "@/lib/oauth/errors";

// POST /api/oauth/register: dynamic client registration (RFC 7591), open to anyone as the
// MCP specification expects; throttled per client address like failed authentications,
// since each registration writes a row. Registering grants nothing: a person still has to
// approve the client on the consent page.

export async function POST(request: Request): Promise<Response> {
  const { db } = getDatabase();
  const wait = await take(db, `oauth-register:${clientAddress((name) => request.headers.get(name))}`, limits().failedAuth);
  if (wait > 0) return withTransportSecurity(request, oauthErrorResponse(fail("too_many_requests", "Too many registrations; slow down"), wait));
  const read = await readJsonBody(request);
  if (!read.ok) return withTransportSecurity(request, oauthErrorResponse(fail("invalid_client_metadata", read.error.message)));
  const valid = validateRegistration(read.value);
  if (!valid.ok) return withTransportSecurity(request, oauthErrorResponse(valid.failure));
  const client = await registerClient(db, valid.client);
  return withTransportSecurity(request, Response.json(client, { status: 201, headers: { "Cache-Control": "no-store", Pragma: "no-cache" } }));
}
