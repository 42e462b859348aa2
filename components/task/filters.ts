import type { TaskOrder } from "@/lib/tasks/queries";
import { STATUSES, type TaskStatus } from "./wire";

/** One list of tasks the browser asks for: a board column, or the whole board filtered. */
export interface ListFilter {
  status: TaskStatus;
  queue?: string;
  mine?: boolean;
  needsCheck?: boolean;
}

/** The board's filters, as kept in the URL (`?queue=…&status=…&mine=1&check=1`). */
export interface BoardFilters {
  queue?: string;
  status?: TaskStatus;
  mine: boolean;
  needsCheck: boolean;
}

const QUEUE = /^[a-z0-9._-]{1,64}$/;

type Params = Record<string, string | string[] | undefined> | URLSearchParams;

function read(params: Params, key: string): string | undefined {
  const value = params instanceof URLSearchParams ? params.get(key) : params[key];
  return (Array.isArray(value) ? value[0] : value) ?? undefined;
}

/** Unknown or malformed values are ignored rather than refused: a URL is typed by people. */
export function parseBoardFilters(params: Params): BoardFilters {
  const queue = read(params, "queue");
  const status = read(params, "status");
  return {
    queue: queue && QUEUE.test(queue) ? queue : undefined,
    status: STATUSES.includes(status as TaskStatus) ? (status as TaskStatus) : undefined,
    mine: read(params, "mine") === "1",
    needsCheck: read(params, "check") === "1",
  };
}

export function boardSearch(filters: BoardFilters): string {
  const params = new URLSearchParams();
  if (filters.queue) params.set("queue", filters.queue);
  if (filters.status) params.set("status", filters.status);
  if (filters.mine) params.set("mine", "1");
  if (filters.needsCheck) params.set("check", "1");
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** The columns a board with these filters shows. */
export function boardColumns(filters: BoardFilters): ListFilter[] {
  return (filters.status ? [filters.status] : STATUSES).map((status) => ({
    status,
    ...(filters.queue ? { queue: filters.queue } : {}),
    ...(filters.mine ? { mine: true } : {}),
    ...(filters.needsCheck ? { needsCheck: true } : {}),
  }));
}

/**
 * Work in flight (queued, claimed, started) in claim order — what claim-next hands out
 * next; the piles that only grow (escalated, done, cancelled) newest first, an index walk
 * whatever their size.
 */
export function orderFor(status: TaskStatus): TaskOrder {
  return status === "queued" || status === "claimed" || status === "started" ? "priority" : "newest";
}

export const PAGE_SIZE = 20;

/** The API query of one list, and of its next page. */
export function listQuery(filter: ListFilter, cursor?: string | null) {
  return {
    status: filter.status,
    order: orderFor(filter.status),
    limit: PAGE_SIZE,
    ...(filter.queue ? { queue: filter.queue } : {}),
    ...(filter.mine ? { owner: "me" as const } : {}),
    ...(filter.needsCheck ? { needsCheck: "true" as const } : {}),
    ...(cursor ? { cursor } : {}),
  };
}
