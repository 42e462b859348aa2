import type { QueryClient } from "@tanstack/react-query";
import { supervisorKeys } from "@/components/supervisor/keys";
import { queueKeys, taskKeys } from "@/components/task/api";
import type { ListFilter } from "@/components/task/filters";
import { HELD, STATUSES, type TaskStatus } from "@/components/task/wire";

/** One message of GET /api/v1/events (lib/realtime/sse.ts). */
export interface LiveEvent {
  eventId: string;
  taskId: string | null;
  queue: string;
  type: string;
  actor: { id: string; name: string; kind: string };
  version: number | null;
  status: string | null;
  at: string;
}

/** Which board columns an event can change: the status it left and the one it reached. */
const TOUCHES: Record<string, TaskStatus[]> = {
  created: ["queued"],
  claim_rejected: [],
  claimed: ["queued", ...HELD],
  started: HELD,
  check_confirmed: HELD,
  heartbeat: HELD,
  side_effect: HELD,
  released: ["queued", ...HELD],
  lease_expired: ["queued", ...HELD],
  failed: ["queued", ...HELD, "escalated"],
  escalated: ["queued", ...HELD, "escalated"],
  completed: ["started", "done"],
  requeued: ["escalated", "queued"],
  resolved: ["escalated", "done"],
  cancelled: ["queued", "escalated", "cancelled"],
};

const touches = (event: LiveEvent) => (event.taskId ? (TOUCHES[event.type] ?? STATUSES) : []);

/** Marks stale — and so refetches, where on screen — every query a batch of events touches. */
export function invalidateFor(client: QueryClient, events: LiveEvent[]): void {
  if (events.length === 0) return;
  for (const id of new Set(events.map((e) => e.taskId).filter((id): id is string => !!id))) {
    void client.invalidateQueries({ queryKey: taskKeys.detail(id) });
    void client.invalidateQueries({ queryKey: taskKeys.events(id) });
  }
  void client.invalidateQueries({
    queryKey: taskKeys.lists,
    predicate: (query) => {
      const filter = query.queryKey[2] as ListFilter | undefined;
      if (!filter) return true;
      return events.some((e) => (!filter.queue || filter.queue === e.queue) && touches(e).includes(filter.status));
    },
  });
  // The board's counts: any task event may move one (a refetch is a few capped index probes).
  if (events.some((e) => e.taskId)) void client.invalidateQueries({ queryKey: taskKeys.counts });
  // The inbox and queue pages: escalations, breaker trips and resets, lapsed leases. Only
  // what is on screen refetches, and a supervisor's pages are few and small.
  void client.invalidateQueries({ queryKey: supervisorKeys.all });
  // Who may claim and the last strike, shown on the board, follow a queue's settings.
  if (events.some((e) => e.type === "settings_changed")) void client.invalidateQueries({ queryKey: ["queue-rules"] });
  if (events.some((e) => e.type === "queue_paused" || e.type === "queue_resumed")) {
    void client.invalidateQueries({ queryKey: [...queueKeys, "paused"] });
  }
  // The pickers' queue names: a queue made (its first event names it) or archived/restored.
  const known = client.getQueryData<string[]>(queueKeys);
  const archiving = events.some((e) => e.type === "archived" || e.type === "unarchived");
  if (archiving || (known && events.some((e) => !known.includes(e.queue)))) void client.invalidateQueries({ queryKey: queueKeys });
}
