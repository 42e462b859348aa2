import { databaseIsUp } from "@/lib/health";

/** Liveness for load balancers and the CLI: no auth, never cached. */
export async function GET() {
  const up = await databaseIsUp();
  return Response.json(up ? { ok: true, db: "up" } : { ok: false, db: "down" }, {
    status: up ? 200 : 503,
    headers: { "Cache-Control": "no-store" },
  });
}
