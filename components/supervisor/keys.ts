/** The supervisors' pages' queries; every event on the stream marks them stale (see invalidate.ts). */
export const supervisorKeys = {
  all: ["supervisor"] as const,
  inbox: (queue: string | null) => ["supervisor", "inbox", queue ?? ""] as const,
  /** The inbox's in_review tasks (components/supervisor/in-review.tsx). */
  inReview: (queue: string | null) => ["supervisor", "in-review", queue ?? ""] as const,
  fleet: ["supervisor", "fleet"] as const,
  /** Lapsed holdings nobody has taken (components/supervisor/lapsed.tsx). */
  lapsed: ["supervisor", "lapsed"] as const,
  people: ["supervisor", "people"] as const,
  queues: ["supervisor", "queues"] as const,
  tokens: ["supervisor", "tokens"] as const,
  webhooks: ["supervisor", "webhooks"] as const,
  schedules: ["supervisor", "schedules"] as const,
  deliveries: (id: string) => ["supervisor", "webhooks", "deliveries", id] as const,
  /** Who did what to whom: the people page's ("person") or the agents page's ("token"). */
  audit: (subject: "person" | "token" | "webhook" | "schedule") => ["supervisor", "audit", subject] as const,
  /** Not fetched: a tick that tells the insights page to re-render (components/insights). */
  insightsTick: ["supervisor", "insights-tick"] as const,
};
