import type { QueryClient } from "@tanstack/react-query";
import { attentionKey } from "@/components/layout/attention-key";
import { supervisorKeys } from "@/components/supervisor/keys";
import { queueKeys, taskKeys } from "@/components/task/api";
import type { ListFilter } from "@/components/task/filters";
import { STATUSES, type TaskStatus } from "@/components/task/wire";
import { EVENT_TYPES, EVENTS, isEventType, touchedBy } from "@/lib/tasks/model";

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

/**
 * Which board columns an event can change: the statuses the machine's moves that write it
 * leave and reach (lib/tasks/core/machine-events.ts); a type it does not know, any column.
 */
const TOUCHES = new Map<string, TaskStatus[]>(EVENT_TYPES.map((type) => [type, touchedBy(type, STATUSES)]));

const touches = (event: LiveEvent) => (event.taskId ? (TOUCHES.get(event.type) ?? [...STATUSES]) : []);

/** Events that move no task between statuses, by the machine's event rows: the counts stay as they are. */
const countsStay = (event: LiveEvent) => isEventType(event.type) && EVENTS[event.type].countsStay === true;

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
  if (events.some((e) => e.taskId && !countsStay(e))) {
    void client.invalidateQueries({ queryKey: taskKeys.counts }, { cancelRefetch: false });
  }
  // Reservation waits (the board's "reserved by"): a holding begun or ended moves them.
  if (events.some((e) => e.taskId && !countsStay(e))) void client.invalidateQueries({ queryKey: ["reservation-waits"] }, { cancelRefetch: false });
  // The inbox, queue, fleet and people pages: escalations, breaker trips, lapsed leases, an
  // agent's heartbeats (its last sign of life). Only what is on screen refetches; one under
  // way is let finish, so a fleet heartbeating many times a second still settles.
  void client.invalidateQueries({ queryKey: supervisorKeys.all }, { cancelRefetch: false });
  // What waits for the person (the nav's counts, docs/attention.md): any event may change it.
  // A read already under way may have begun before this event: it is let finish, then read
  // once more (later events join that one), so the count lands on the latest event.
  const inFlight = client.getQueryState(attentionKey)?.fetchStatus === "fetching";
  const settled = client.invalidateQueries({ queryKey: attentionKey }, { cancelRefetch: false });
  if (inFlight) void settled.then(() => client.invalidateQueries({ queryKey: attentionKey }, { cancelRefetch: false }));
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
