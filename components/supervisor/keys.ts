/** The supervisors' pages' queries; every event on the stream marks them stale (see invalidate.ts). */
export const supervisorKeys = {
  all: ["supervisor"] as const,
  inbox: (queue: string | null) => ["supervisor", "inbox", queue ?? ""] as const,
  /** The Inbox link's badge (components/supervisor/inbox-badge.tsx). */
  inboxCount: ["supervisor", "inbox-count"] as const,
  fleet: ["supervisor", "fleet"] as const,
  people: ["supervisor", "people"] as const,
  queues: ["supervisor", "queues"] as const,
  tokens: ["supervisor", "tokens"] as const,
  /** Not fetched: a tick that tells the insights page to re-render (components/insights). */
  insightsTick: ["supervisor", "insights-tick"] as const,
};
