import { ALSO_ANSWERS } from "@/lib/tasks/model";

// Which webhook subscription an event matched, for the delivery log. A subscription names
// event types, or "*"; some types also answer for other events (machine-events' ALSO_ANSWERS:
// `completed` for `approved`, `started` for a `claimed` event with started: true). The outbox's
// statement (lib/tasks/core/events.ts) is built from the same list. A delivery row keeps no
// payload: the delivery exists, so a flagged alias it could have come under is the one.

/** The entry of a webhook's `events` that delivers an event of `type`: the type itself, the type it answers under, or "*"; null for none. */
export function matchedBy(events: readonly string[], type: string, payload?: unknown): string | null {
  if (events.includes(type)) return type;
  const flagged = (flag: string) => typeof payload === "object" && payload !== null && (payload as Record<string, unknown>)[flag] === true;
  const under = ALSO_ANSWERS.find((a) => a.type === type && (!a.flag || payload === undefined || flagged(a.flag)) && events.includes(a.as));
  if (under) return under.as;
  return events.includes("*") ? "*" : null;
}
