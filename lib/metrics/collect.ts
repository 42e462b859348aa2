import "server-only";
import type { Executor } from "@/db/client";
import type { HubStats } from "@/lib/realtime/hub";
import { conflictCodes } from "@/lib/tasks/model";
import { readGauges } from "./gauges";
import { histogramSamples, renderPrometheus, type Family } from "./prometheus";
import { LATENCY_BUCKETS, registry } from "./registry";

/**
 * Everything /api/v1/metrics reports: two cheap reads of the database (gauges.ts), the rest
 * from this process's memory: counters move with what this process saw, as Prometheus
 * expects of each scraped instance. Event counts come from the LISTEN hub, which reads
 * every committed event once, whichever process wrote it.
 */
export async function collectMetrics(db: Executor, hub: HubStats | null): Promise<string> {
  const { tasks, queues } = await readGauges(db);
  const r = registry();
  const families: Family[] = [
    {
      name: "claimboard_tasks", type: "gauge", help: "Tasks by queue and status.",
      samples: tasks.map((t) => ({ labels: { queue: t.queue, status: t.status }, value: t.n })),
    },
    {
      name: "claimboard_queue_lease_seconds", type: "gauge", help: "The lease length a claim in this queue gets.",
      samples: queues.map((q) => ({ labels: { queue: q.name }, value: q.lease_seconds })),
    },
    {
      name: "claimboard_queue_breaker_tripped", type: "gauge", help: "1 while the queue's breaker stops automatic reclaiming.",
      samples: queues.map((q) => ({ labels: { queue: q.name }, value: q.tripped ? 1 : 0 })),
    },
    {
      name: "claimboard_events_total", type: "counter",
      help: "Committed events (claimed, lease_expired, breaker_tripped, ...) seen by this process since it started.",
      samples: [...r.events].flatMap(([queue, byType]) => [...byType].map(([type, n]) => ({ labels: { queue, type }, value: n }))),
    },
    {
      name: "claimboard_conflicts_total", type: "counter", help: "Engine calls refused with a conflict (409), by code.",
      samples: conflictCodes.map((code) => ({ labels: { code }, value: r.refusals.get(code) ?? 0 })),
    },
    {
      name: "claimboard_claim_duration_seconds", type: "histogram", help: "Time of claim calls (one transaction each), by operation.",
      samples: [...r.claimLatency].flatMap(([operation, h]) => histogramSamples({ operation }, LATENCY_BUCKETS, h.counts, h.sum, h.count)),
    },
    {
      name: "claimboard_sse_subscribers", type: "gauge", help: "Open event streams on this process.",
      samples: [{ value: hub?.subscribers ?? 0 }],
    },
    {
      name: "claimboard_listen_reconnects_total", type: "counter", help: "Times this process's LISTEN connection was re-established after a loss.",
      samples: [{ value: Math.max(0, (hub?.listenConnects ?? 0) - 1) }],
    },
    {
      name: "claimboard_listen_connected", type: "gauge", help: "1 while this process's LISTEN connection is up.",
      samples: [{ value: hub && hub.lastListenAt !== null && (hub.lastListenLossAt ?? 0) <= hub.lastListenAt ? 1 : 0 }],
    },
  ];
  return renderPrometheus(families);
}
