import { endpoints } from "@/lib/http/endpoints";
import { otherMethods } from "@/lib/http/routes";
import { handle } from "@/lib/http/handler";
import { collectMetrics } from "@/lib/metrics/collect";
import { PROMETHEUS_CONTENT_TYPE } from "@/lib/metrics/prometheus";
import { getHub } from "@/lib/realtime";

// The first scrape starts this process's hub (if no stream has yet): event counters run from then.
export const GET = handle(endpoints.metrics, async ({ db }) => {
  const hub = await getHub().catch(() => null);
  return new Response(await collectMetrics(db, hub?.stats ?? null), {
    headers: { "Content-Type": PROMETHEUS_CONTENT_TYPE, "Cache-Control": "no-store" },
  });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.metrics);
