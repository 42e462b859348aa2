import type { EventView } from "./wire";

export interface SideEffect {
  id: string;
  description: string;
  actor: EventView["actor"];
  at: string;
}

/** The side effects not yet confirmed: those recorded since the last check_confirmed. */
export function uncheckedSideEffects(events: EventView[]): SideEffect[] {
  const lastCheck = events.findLastIndex((e) => e.type === "check_confirmed");
  return events
    .slice(lastCheck + 1)
    .flatMap((e) => (e.type === "side_effect" ? [{
      id: e.id,
      description: String(e.payload?.description ?? "(no description)"),
      actor: e.actor,
      at: e.createdAt,
    }] : []));
}
