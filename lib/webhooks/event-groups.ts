import { EVENT_TYPES, EVENTS, isEventType } from "@/lib/tasks/model";

// The /webhooks picker offers every event type of the engine's one list (EVENT_TYPES, which
// machine.test.ts holds equal to the database enum), grouped as a team thinks of them. A type
// added to the engine and not placed here still appears, under "Other": no type is ever left
// out of the picker. Pure: the page imports it.

export const EVENT_GROUPS = [
  { id: "work", label: "Work", types: ["created", "claimed", "started", "completed", "released", "failed", "escalated", "cancelled", "requeued", "resolved", "lease_expired", "lapsed", "claim_rejected", "heartbeat", "attempt_limit_reached", "check_confirmed", "checkpointed", "edited", "commented", "acknowledged", "events_archived"] },
  { id: "people", label: "People in the loop", types: ["submitted", "approved", "rejected", "question_asked", "question_answered", "question_expired"] },
  { id: "effects", label: "Effects", types: ["side_effect", "effect_intended", "effect_resolved", "effect_unknown"] },
  { id: "budgets", label: "Budgets", types: ["budget_warning", "budget_reached", "budget_raised"] },
  { id: "graph", label: "Graph", types: ["dependency_added", "dependency_removed", "unblocked"] },
  { id: "admin", label: "Admin", types: ["breaker_tripped", "breaker_reset", "settings_changed", "queue_paused", "queue_resumed", "archived", "unarchived", "schedule_skipped"] },
] as const;

export interface EventGroup {
  id: string;
  label: string;
  types: { type: string; label: string }[];
}

/** Every type of `all` exactly once, in its group (in the group's order), the unplaced last under "Other". */
export function groupEventTypes(all: readonly string[] = EVENT_TYPES): EventGroup[] {
  const known = new Set(all);
  const labelOf = (type: string) => (isEventType(type) ? EVENTS[type].label : type.replaceAll("_", " "));
  const placed = new Set<string>();
  const groups: EventGroup[] = EVENT_GROUPS.map((group) => ({
    id: group.id,
    label: group.label,
    types: group.types.filter((type) => known.has(type) && !placed.has(type) && placed.add(type)).map((type) => ({ type, label: labelOf(type) })),
  }));
  const other = all.filter((type) => !placed.has(type));
  if (other.length > 0) groups.push({ id: "other", label: "Other", types: other.map((type) => ({ type, label: labelOf(type) })) });
  return groups.filter((group) => group.types.length > 0);
}

/** A type as the page writes it: words, not snake_case. */
/** A type's words where its name alone would not say it: `lapsed` is the lease's (the picker's "lease lapsed", docs/webhooks.md). */
const WORDS: Readonly<Record<string, string>> = { "*": "every event", lapsed: "lease lapsed" };
export const eventWords = (type: string) => WORDS[type] ?? type.replaceAll("_", " ");
