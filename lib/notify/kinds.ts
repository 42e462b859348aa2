// Browser notifications (docs/attention.md, "Notifications"): the event types that may be a
// fact for a person, the kinds of fact, and what the browser is told of one. Pure: the app
// shell imports it. Each type has its rule in lib/notify/facts.ts (the server decides; the
// browser only asks about these).

/** Event types the app shell asks the server about, keyed by the rule that reads them. */
export const NOTIFIED_TYPES = ["submitted", "claimed", "released", "question_asked", "budget_reached"] as const;
export type NotifiedType = (typeof NOTIFIED_TYPES)[number];

export const isNotifiedType = (type: string): type is NotifiedType => (NOTIFIED_TYPES as readonly string[]).includes(type);

/**
 * The kinds a person turns on or off on /account (kept on the server: users.notifications_off).
 * `lapsing` is told by the browser itself from the attention read (nothing is written when a
 * lease nears its end), the others from events.
 */
export const NOTIFICATION_KINDS = ["question", "review_waiting", "budget", "lapsing", "takeover"] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** Each kind in the words of the /account form. */
export const NOTIFICATION_KIND_LABELS: Record<NotificationKind, string> = {
  question: "A question I may answer",
  review_waiting: "A review waiting for me",
  budget: "A task parked on its budget (supervisors)",
  lapsing: "My lease lapses in a minute (with a button to renew it)",
  takeover: "My task taken over or taken back",
};

/** One fact for one person: what the notification says, and the task it opens. */
export interface NotificationFact {
  /** The event it is about: one notification per event id, ever. */
  eventId: string;
  kind: NotificationKind;
  taskId: string | null;
  title: string;
  body: string;
}
