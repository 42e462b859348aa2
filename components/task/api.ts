import { countsQuery, listQuery, type ListFilter } from "./filters";
import type { EventView, LeaseView, PageView, TaskStatus, TaskView } from "./wire";

export const taskKeys = {
  all: ["tasks"] as const,
  lists: ["tasks", "list"] as const,
  list: (filter: ListFilter) => ["tasks", "list", filter] as const,
  counts: ["tasks", "counts"] as const,
  countsOf: (filter: Omit<ListFilter, "status" | "sort">) => ["tasks", "counts", filter] as const,
  detail: (id: string) => ["tasks", "detail", id] as const,
  /** Under the task's detail, so whatever refreshes the task refreshes it too. */
  readiness: (id: string) => ["tasks", "detail", id, "readiness"] as const,
  /** Under the task's detail too: why it is held (GET /tasks/{id}/lease). */
  lease: (id: string) => ["tasks", "detail", id, "lease"] as const,
  events: (id: string) => ["tasks", "events", id] as const,
};
export const queueKeys = ["queues"] as const;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A lapsed session: a full page load to sign-in (and back here afterwards), dropping every
 * cached task with it rather than showing them as if still current.
 */
export function goToSignIn(): void {
  // eslint-disable-next-line @next/next/no-location-assign-relative-destination -- a full load is the point: no stale cache survives
  window.location.href = `/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`;
}

/** GET from the API with the session cookie; a lapsed session goes back to sign-in. */
async function getJson<T>(path: string, query: Record<string, string | number> = {}): Promise<T> {
  const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const url = `/api/v1${path}${params.size ? `?${params}` : ""}`;
  const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" }, cache: "no-store" });
  const body = (await response.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
  if (response.status === 401) goToSignIn();
  if (!response.ok) {
    throw new ApiError(response.status, body?.error?.code ?? `http_${response.status}`, body?.error?.message ?? response.statusText);
  }
  return body as T;
}

export async function fetchTaskPage(filter: ListFilter, cursor: string | null): Promise<PageView<TaskView>> {
  const page = await getJson<{ tasks: TaskView[]; nextCursor: string | null }>("/tasks", listQuery(filter, cursor));
  return { items: page.tasks, nextCursor: page.nextCursor };
}

export interface CountsView {
  statuses: Record<TaskStatus, number>;
  queues: { queue: string; statuses: Record<TaskStatus, number> }[];
  cap: number;
}

/** The board's live counts for a filter (GET /tasks/counts: each stops at cap + 1). */
export async function fetchCounts(filter: Omit<ListFilter, "status" | "sort">): Promise<CountsView> {
  return getJson<CountsView>("/tasks/counts", countsQuery(filter));
}

export interface ReadinessView {
  claimable: boolean;
  reasons: { code: string; message: string }[];
  claimableAt: string | null;
}

/** Why the task is held, or not (GET /tasks/{id}/lease, docs/leases.md). */
export async function fetchLease(id: string): Promise<LeaseView> {
  return getJson<LeaseView>(`/tasks/${id}/lease`);
}

/** Why the viewer could not claim the task now (the engine's one answer, lib/tasks/claiming/readiness.ts). */
export async function fetchReadiness(id: string): Promise<ReadinessView> {
  return getJson<ReadinessView>(`/tasks/${id}/readiness`);
}

/** The tasks that depend on this one (the graph's other direction). */
export async function fetchDependents(id: string): Promise<TaskView[]> {
  return (await getJson<{ tasks: TaskView[] }>("/tasks", { dependsOn: id, limit: 100 })).tasks;
}

export async function fetchTask(id: string): Promise<TaskView> {
  return (await getJson<{ task: TaskView }>(`/tasks/${id}`)).task;
}

/** Most events a task page shows; a task past this many is a runaway heartbeat loop. */
export const HISTORY_LIMIT = 1000;

/**
 * The whole history, read again in full rather than appended to: event ids are taken
 * before commit, so "after the last id seen" could skip one that committed late.
 */
export async function fetchHistory(id: string): Promise<EventView[]> {
  const events: EventView[] = [];
  let after: string | null = null;
  do {
    const page: { events: EventView[]; nextCursor: string | null } = await getJson(`/tasks/${id}/events`, {
      limit: 100,
      ...(after ? { after } : {}),
    });
    events.push(...page.events);
    after = page.nextCursor;
  } while (after && events.length < HISTORY_LIMIT);
  return events;
}
