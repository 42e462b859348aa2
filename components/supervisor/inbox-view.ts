import type { InboxTaskView } from "./types";

// The inbox's filter, sort and groups, over the escalated tasks it holds (at most
// INBOX_LIMIT of one queue filter): pure functions, so the view follows every keystroke and
// every live refetch without a round trip, and "all matching" means exactly the rows shown.

export const INBOX_SORTS = {
  waiting: "Waiting longest first",
  recent: "Escalated most recently first",
  failures: "Most failures first",
  priority: "Highest priority first",
} as const;
export type InboxSort = keyof typeof INBOX_SORTS;

/** A sort named in the URL, or the default (waiting longest first). */
export const inboxSort = (value: string | undefined): InboxSort => (value && value in INBOX_SORTS ? (value as InboxSort) : "waiting");

/** The inbox's address for a queue, search and sort: what the URL bar shows and a link can share. */
export function inboxHref(queue: string | null, search: string, sort: InboxSort): string {
  const params = new URLSearchParams();
  if (queue) params.set("queue", queue);
  if (search) params.set("q", search);
  if (sort !== "waiting") params.set("sort", sort);
  const query = params.toString();
  return query ? `/inbox?${query}` : "/inbox";
}

/** Lowercased text a search matches: title, description, payload, failure reasons, id, queue. */
function haystack(item: InboxTaskView): string {
  const { task } = item;
  return [task.id, `#${task.id}`, task.queue, task.title, task.description, JSON.stringify(task.payload ?? ""), item.reason, ...item.failures.map((f) => f.reason)]
    .join("\n")
    .toLowerCase();
}

/** Every word of the search must appear somewhere (in any order). */
export function matches(item: InboxTaskView, search: string): boolean {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const text = haystack(item);
  return words.every((word) => text.includes(word));
}

const byId = (a: InboxTaskView, b: InboxTaskView) => (BigInt(a.task.id) < BigInt(b.task.id) ? -1 : 1);
const comparators: Record<InboxSort, (a: InboxTaskView, b: InboxTaskView) => number> = {
  waiting: (a, b) => a.escalatedAt.localeCompare(b.escalatedAt) || byId(a, b),
  recent: (a, b) => b.escalatedAt.localeCompare(a.escalatedAt) || byId(b, a),
  failures: (a, b) => b.task.failureCount - a.task.failureCount || a.escalatedAt.localeCompare(b.escalatedAt),
  priority: (a, b) => b.task.priority - a.task.priority || a.escalatedAt.localeCompare(b.escalatedAt),
};

export function visibleItems(items: InboxTaskView[], search: string, sort: InboxSort): InboxTaskView[] {
  return items.filter((item) => matches(item, search)).sort(comparators[sort]);
}

export interface ReasonGroup {
  reason: string;
  items: InboxTaskView[];
}

/**
 * Tasks that share a reason (as written, trimmed), biggest group first: "12 tasks: 401 from
 * the billing API". Only reasons shared by two or more tasks make a group.
 */
export function groupByReason(items: InboxTaskView[]): ReasonGroup[] {
  const groups = new Map<string, InboxTaskView[]>();
  for (const item of items) {
    const reason = item.reason.trim();
    groups.set(reason, [...(groups.get(reason) ?? []), item]);
  }
  return [...groups.entries()]
    .filter(([, members]) => members.length > 1)
    .map(([reason, members]) => ({ reason, items: members }))
    .sort((a, b) => b.items.length - a.items.length || a.reason.localeCompare(b.reason));
}

export const plural = (n: number, word = "task") => `${n} ${word}${n === 1 ? "" : "s"}`;
