import { sql } from "drizzle-orm";

// Which webhook subscription an event matches (contract v1.3, "A lapse is known when it
// happens"). A subscription names event types, or "*"; some types stand for more than one
// event: `completed` is also told of `approved` — the task reached done by review, which is
// what a team watching completions means. The outbox's statement (lib/tasks/core/events.ts)
// and the delivery log read this one table.

/** For a subscribed type, the other event types it is delivered. */
export const ALSO_DELIVERED: Readonly<Record<string, readonly string[]>> = {
  completed: ["approved"],
};

/** The outbox's extra match, in SQL over the inserted event `i` and the webhook `w`. */
export const alsoDeliveredSql = sql.raw(
  Object.entries(ALSO_DELIVERED)
    .flatMap(([subscribed, types]) => types.map((type) => `OR (i.type::text = '${type}' AND '${subscribed}' = ANY (w.events))`))
    .join(" "),
);

/** The entry of a webhook's `events` that delivers an event of `type`: the type itself, the type it stands under, or "*"; null for none. */
export function matchedBy(events: readonly string[], type: string): string | null {
  if (events.includes(type)) return type;
  const under = events.find((subscribed) => ALSO_DELIVERED[subscribed]?.includes(type));
  if (under) return under;
  return events.includes("*") ? "*" : null;
}
