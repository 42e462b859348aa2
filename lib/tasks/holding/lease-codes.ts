// The lease read's words (GET /tasks/{id}/lease, docs/leases.md): pure, so the wire schema and
// the page's sentence read the same lists the engine answers with.

export const LEASE_STATES = ["free", "held", "lapsed", "parked"] as const;
export type LeaseState = (typeof LEASE_STATES)[number];

/** Why the lease is as it is; several may hold at once. */
export const LEASE_REASONS = [
  "held", "lease_lapsed", "renewing_without_progress", "attempt_limited", "unread_input",
  "awaiting_answer", "awaiting_budget",
  "queued", "blocked", "scheduled", "queue_paused", "escalated", "in_review", "done", "cancelled",
] as const;
export type LeaseReason = (typeof LEASE_REASONS)[number];
