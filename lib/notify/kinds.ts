// Browser notifications (issue 23 item 4, docs/board.md): the event types that may be a fact
// for a person, and what the browser is told of one. Pure: the board imports it. Each type has
// its rule in lib/notify/facts.ts (the server decides; the browser only asks about these).

/** Event types the board asks the server about, keyed by the rule that reads them. */
export const NOTIFIED_TYPES = ["submitted", "claimed", "released", "question_asked"] as const;
export type NotifiedType = (typeof NOTIFIED_TYPES)[number];

export const isNotifiedType = (type: string): type is NotifiedType => (NOTIFIED_TYPES as readonly string[]).includes(type);

/** One fact for one person: what the notification says, and the task it opens. */
export interface NotificationFact {
  /** The event it is about: one notification per event id, ever. */
  eventId: string;
  kind: "review_waiting" | "takeover" | "question";
  taskId: string | null;
  title: string;
  body: string;
}
