// An agent's fleet state at a moment (docs/fleet.md "States"). Pure: the server decides it
// at the read, and /agents decides it again as its clock passes a lease end, a wait's end or
// `seenUntil`, so "waiting" turns "idle" and "idle" turns "gone" on time with no read between.

export type FleetState = "working" | "waiting" | "idle" | "gone";

type Time = Date | string | null;
const ms = (t: Time) => (t === null ? null : typeof t === "string" ? Date.parse(t) : t.getTime());

export interface StateInputs {
  held: { leaseUntil: Time }[];
  heldCount: number;
  waiting: { until: Time } | null;
  seenUntil: Time;
}

export function fleetStateAt(agent: StateInputs, now: number): FleetState {
  // A lease not yet run out (or parked: no lease end) is work; one past its end is nobody's work.
  const unshown = agent.heldCount > agent.held.length;
  if (unshown || agent.held.some((h) => ms(h.leaseUntil) === null || ms(h.leaseUntil)! > now)) return "working";
  if (agent.waiting && (ms(agent.waiting.until) ?? 0) > now) return "waiting";
  return (ms(agent.seenUntil) ?? 0) > now ? "idle" : "gone";
}
