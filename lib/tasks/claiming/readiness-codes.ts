// The readiness reasons' codes (docs/contract.md#the-work-graph), pure so the wire schema (lib/http/wire.ts) can import them.
export const readinessCodes = [
  "status", "held", "breaker_tripped", "queue_archived", "queue_paused", "claimants", "blocked", "not_before", "lock_delay", "reserved", "agent_budget", "needs_check", "person_grace",
] as const;
export type ReadinessCode = (typeof readinessCodes)[number];
