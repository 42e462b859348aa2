// What waits for a person or agent (docs/contract.md "Attention: what waits for me"). Pure: the
// nav and the wire schema import it; lib/attention/attention.ts reads it from the engine.

/** The kinds, in the order the nav and the items list them. */
export const ATTENTION_KINDS = ["questions", "reviews", "budgets", "lapsing", "lapsed", "escalated", "effects"] as const;
export type AttentionKind = (typeof ATTENTION_KINDS)[number];

/** One thing that waits: the task it is about, and since when (a lease's end for lapsing and lapsed). */
export interface AttentionItem {
  kind: AttentionKind;
  taskId: string;
  title: string;
  queue: string;
  since: Date;
  /** The question to answer (questions) or the budget question a raise answers (budgets). */
  questionId?: string;
}

export interface Attention {
  /** Per kind, up to the cap (999); `more` names the kinds past it. */
  counts: Record<AttentionKind, number>;
  more: AttentionKind[];
  /** The first 50 of each kind, kind by kind. */
  items: AttentionItem[];
  /** When time alone changes the answer (a lease nears its end or lapses): look again then. */
  nextChangeAt: Date | null;
}

/** The Inbox badge's sum for a supervisor: everything the inbox asks them to decide. */
export const INBOX_KINDS: readonly AttentionKind[] = ["escalated", "lapsed", "budgets"];
