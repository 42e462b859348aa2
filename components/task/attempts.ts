import { claimStarted, EVENTS, isEventType } from "@/lib/tasks/model";
import type { EventView } from "./wire";

/** One line of the timeline: an event, or a run of heartbeats folded into one. */
export interface TimelineEntry {
  key: string;
  type: EventView["type"];
  actor: EventView["actor"];
  at: string;
  events: EventView[];
  /** A claim right after a lapse: this claimant took the task over from the previous owner. */
  takeover?: boolean;
}

export interface Attempt {
  /** 0: before anyone claimed the task; then 1, 2, … one per `claimed`. */
  number: number;
  /** Who claimed it (attempts from 1 on). */
  claimant: EventView["actor"] | null;
  entries: TimelineEntry[];
  outcome: string;
  /** The steps this attempt checkpointed, in the order it recorded them (docs/checkpoints.md). */
  steps: number[];
}

/** How an attempt ended, in the machine's words for the event that ended it (lib/tasks/core/machine-events.ts). */
const outcomeOf = (event: EventView) => (isEventType(event.type) ? EVENTS[event.type].outcome : undefined);

/**
 * A claim's line. A claim that started the task in the same act is one event (`started: true`)
 * and one line, "claimed and started it"; a history written before shows its `started` event
 * as a line of its own.
 */
export function claimText(entry: TimelineEntry): string {
  const started = claimStarted(entry.events.at(-1)!);
  if (entry.takeover) return `took it over (the previous lease had lapsed)${started ? " and started it" : ""}`;
  return started ? "claimed and started it" : EVENTS.claimed.label;
}

/** Consecutive heartbeats by the same actor read as one line ("renewed the lease ×12"). */
function entriesOf(events: EventView[], takeovers: Set<string>): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  for (const event of events) {
    const last = entries.at(-1);
    if (event.type === "heartbeat" && last?.type === "heartbeat" && last.actor.id === event.actor.id) {
      last.events.push(event);
      last.at = event.createdAt;
    } else {
      const takeover = takeovers.has(event.id) ? { takeover: true } : {};
      entries.push({ key: event.id, type: event.type, actor: event.actor, at: event.createdAt, events: [event], ...takeover });
    }
  }
  return entries;
}

/**
 * A task's history, oldest first, cut into attempts: each `claimed` starts one. What
 * happens after an attempt ends (an expiry written by the next claim, a supervisor's
 * requeue) stays with it until the next claim.
 */
export function groupByAttempt(events: EventView[]): Attempt[] {
  const groups: { claimant: EventView["actor"] | null; events: EventView[] }[] = [];
  const takeovers = new Set<string>();
  let previous: EventView | null = null;
  for (const event of events) {
    if (event.type === "claimed" && previous?.type === "lease_expired") takeovers.add(event.id);
    // A lost claim or a comment can fall between a lapse and the claim that followed it.
    if (event.type !== "claim_rejected" && event.type !== "commented") previous = event;
    if (event.type === "claimed" || groups.length === 0) {
      groups.push({ claimant: event.type === "claimed" ? event.actor : null, events: [] });
    }
    groups.at(-1)!.events.push(event);
  }
  let number = groups[0]?.claimant ? 1 : 0;
  return groups.map((group) => {
    const ending = group.events.findLast((e) => outcomeOf(e) !== undefined);
    return {
      number: number++,
      claimant: group.claimant,
      entries: entriesOf(group.events, takeovers),
      outcome: ending ? outcomeOf(ending)! : group.claimant ? "in progress" : "",
      steps: group.events.flatMap((e) => (e.type === "checkpointed" ? [e.payload.step] : [])),
    };
  });
}
