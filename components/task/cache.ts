import type { InfiniteData, QueryClient } from "@tanstack/react-query";
import { taskKeys } from "./api";
import { orderFor, type ListFilter } from "./filters";
import type { PageView, TaskView, Viewer } from "./wire";

export type ListData = InfiniteData<PageView<TaskView>, string | null>;

/** Every word of a search is the start of a word of the task (the server's rule, loosely). */
function roughlyMatches(task: TaskView, q: string): boolean {
  const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const haystack = words(`${task.title} ${task.description} ${JSON.stringify(task.payload)}`);
  return words(q).every((word) => haystack.some((w) => w.startsWith(word)));
}

/**
 * Whether a task belongs in a list. The search is matched loosely here (the server's is
 * the word, and the stream's refetch corrects any difference within a moment).
 */
export function matchesFilter(task: TaskView, filter: ListFilter, viewer: Viewer): boolean {
  return (
    task.status === filter.status &&
    (!filter.queue || task.queue === filter.queue) &&
    (!filter.mine || task.owner?.id === viewer.actorId) &&
    (!filter.unowned || !task.owner) &&
    (!filter.needsCheck || task.needsCheck) &&
    (filter.minPriority === undefined || task.priority >= filter.minPriority) &&
    (!filter.olderThan || Date.now() - Date.parse(task.createdAt) >= filter.olderThan * 1000) &&
    (!filter.q || roughlyMatches(task, filter.q))
  );
}

/** Ids of tasks not created yet (optimistic placeholders) sort after every real one. */
const idNumber = (id: string) => (/^\d+$/.test(id) ? BigInt(id) : 1n << 63n);
const byId = (a: TaskView, b: TaskView) => {
  const x = idNumber(a.id);
  const y = idNumber(b.id);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** The client's copy of the server's ORDER BY for a list (see lib/tasks/reads/queries.ts). */
export function compareFor(filter: ListFilter): (a: TaskView, b: TaskView) => number {
  if (filter.sort === "created") return (a, b) => b.createdAt.localeCompare(a.createdAt) || byId(b, a);
  if (filter.sort === "updated") return (a, b) => b.updatedAt.localeCompare(a.updatedAt) || byId(b, a);
  if (!filter.sort && orderFor(filter.status) === "newest") return (a, b) => byId(b, a);
  return (a, b) => b.priority - a.priority || a.createdAt.localeCompare(b.createdAt) || byId(a, b);
}

/**
 * Puts the task where it belongs in one list: out of it when it no longer matches, in
 * order when it does — unless it sorts past the pages loaded so far, where it will turn
 * up when the next page is read.
 */
function placeInList(data: ListData, filter: ListFilter, task: TaskView, viewer: Viewer): ListData {
  const pages = data.pages.map((page) => ({ ...page, items: page.items.filter((t) => t.id !== task.id) }));
  if (matchesFilter(task, filter, viewer)) {
    const compare = compareFor(filter);
    const last = pages.length - 1;
    const index = pages.findIndex((page, i) => {
      const tail = page.items.at(-1);
      return (!tail && i === last) || (tail && compare(task, tail) <= 0) || (i === last && !page.nextCursor);
    });
    if (index >= 0) {
      const page = pages[index]!;
      page.items = [...page.items, task].sort(compare);
    }
  }
  return { ...data, pages };
}

/** Writes what we now believe about a task into every cached view of it. */
export function putTask(client: QueryClient, task: TaskView, viewer: Viewer): void {
  if (client.getQueryData(taskKeys.detail(task.id))) client.setQueryData(taskKeys.detail(task.id), task);
  for (const [key, data] of client.getQueriesData<ListData>({ queryKey: taskKeys.lists })) {
    const filter = key[2] as ListFilter | undefined;
    if (!data || !filter) continue;
    client.setQueryData<ListData>(key, placeInList(data, filter, task, viewer));
  }
}

/** Takes a task (an optimistic placeholder, say) out of every list. */
export function dropTask(client: QueryClient, id: string): void {
  for (const [key, data] of client.getQueriesData<ListData>({ queryKey: taskKeys.lists })) {
    if (!data) continue;
    client.setQueryData<ListData>(key, {
      ...data,
      pages: data.pages.map((page) => ({ ...page, items: page.items.filter((t) => t.id !== id) })),
    });
  }
}

