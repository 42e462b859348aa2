import { endpoints } from "@/lib/http/endpoints";
import { otherMethods } from "@/lib/http/routes";
import { withTransportSecurity } from "@/lib/http/transport";
import { databaseIsUp } from "@/lib/health";

/** Liveness for load balancers and the CLI: no auth, never cached. */
export async function GET(request: Request) {
  const up = await databaseIsUp();
  const answer = Response.json(up ? { ok: true, db: "up" } : { ok: false, db: "down" }, {
    status: up ? 200 : 503,
    headers: { "Cache-Control": "no-store" },
  });
  return withTransportSecurity(request, answer);
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.health);
