import type { InboxDecision } from "./escalated-task";

/** The inbox's three decisions: the words for buttons and toasts, and what each one means. */
export const decisions: Record<InboxDecision, { label: string; past: string; pending: string; meaning: string }> = {
  requeue: {
    label: "Requeue",
    past: "Requeued",
    pending: "Requeueing…",
    meaning: "Requeue: back in line for another try, its failure count reset to 0.",
  },
  resolve: {
    label: "Resolve",
    past: "Resolved",
    pending: "Resolving…",
    meaning: "Resolve: mark it done by hand (you did the work or it is no longer needed); tasks that depend on it proceed.",
  },
  cancel: {
    label: "Cancel",
    past: "Cancelled",
    pending: "Cancelling…",
    meaning: "Cancel: drop it for good; it will never run, and tasks that depend on it come to this inbox.",
  },
};

export const DECISIONS = Object.keys(decisions) as InboxDecision[];
