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
  // Fields of a queued or escalated task (a list shows its title and priority); a comment
  // changes no list at all (the task's own history refetches below).
  edited: ["queued", "escalated"],
  commented: [],
  dependency_added: ["queued"],
  unblocked: ["queued"],
};

/** Events that move no task between statuses: the counts stay as they are. */
const SAME_COUNTS = new Set(["claim_rejected", "heartbeat", "side_effect", "check_confirmed", "edited", "commented", "dependency_added"]);

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
  // The board's counts: an event that moves a task moves one (a refetch is a few capped
  // index probes). A refetch already under way is let finish, not restarted: under a steady
  // stream of events a restarted one would never land.
  if (events.some((e) => e.taskId && !SAME_COUNTS.has(e.type))) {
    void client.invalidateQueries({ queryKey: taskKeys.counts }, { cancelRefetch: false });
  }
  // The inbox, queue, fleet and people pages: escalations, breaker trips, lapsed leases, an
  // agent's heartbeats (its last sign of life). Only what is on screen refetches; one under
  // way is let finish, so a fleet heartbeating many times a second still settles.
  void client.invalidateQueries({ queryKey: supervisorKeys.all }, { cancelRefetch: false });
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
