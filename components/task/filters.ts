import type { TaskOrder, TaskSort } from "@/lib/tasks/model";
import { LIMITS } from "@/lib/limits";
import { STATUSES, type TaskStatus } from "./wire";

/** One list of tasks the browser asks for: a board column (or a status group of the list view). */
export interface ListFilter {
  status: TaskStatus;
  queue?: string;
  mine?: boolean;
  /** Nobody holds it (owner=none). */
  unowned?: boolean;
  needsCheck?: boolean;
  q?: string;
  minPriority?: number;
  olderThan?: number;
  sort?: TaskSort;
}

export type OwnerFilter = "me" | "none";
export type BoardView = "columns" | "list";

/** The cookie that remembers a person's board view (per person: one browser may serve several). */
export const viewCookie = (actorId: string) => `board-view-${actorId}`;

/** The board's state, as kept in the URL (`?queue=…&status=…&mine=1&check=1&q=…&view=list`). */
export interface BoardFilters {
  queue?: string;
  status?: TaskStatus;
  mine: boolean;
  unowned?: boolean;
  needsCheck: boolean;
  q?: string;
  /**
   * The lowest priority shown: `raised` (1+), `high` (5+) or any whole number (the query
   * box's `priority:>5` is `6`). Priority is a number where higher is claimed first.
   */
  priority?: PriorityFilter;
  /** Created at least this long ago. */
  age?: AgeFilter;
  sort?: TaskSort;
  view?: BoardView;
}

export const PRIORITY_FILTERS = { raised: 1, high: 5 } as const;
export type PriorityFilter = keyof typeof PRIORITY_FILTERS | `${number}`;

/** The lowest priority a priority filter admits. */
export function minPriorityOf(priority: PriorityFilter): number {
  return priority in PRIORITY_FILTERS ? PRIORITY_FILTERS[priority as keyof typeof PRIORITY_FILTERS] : Number(priority);
}

function priorityFilter(value: string | undefined): PriorityFilter | undefined {
  if (value === "raised" || value === "high") return value;
  if (!value || !/^-?\d{1,4}$/.test(value)) return undefined;
  const n = Number(value);
  return n >= LIMITS.priority.min && n <= LIMITS.priority.max ? (String(n) as `${number}`) : undefined;
}
export const AGE_FILTERS = { "1h": 3600, "1d": 86_400, "1w": 604_800 } as const;
export type AgeFilter = keyof typeof AGE_FILTERS;
export const SORTS: TaskSort[] = ["priority", "created", "updated"];

const QUEUE = /^[a-z0-9._-]{1,64}$/;

type Params = Record<string, string | string[] | undefined> | URLSearchParams;

function read(params: Params, key: string): string | undefined {
  const value = params instanceof URLSearchParams ? params.get(key) : params[key];
  return (Array.isArray(value) ? value[0] : value) ?? undefined;
}

const oneOf = <T extends string>(values: readonly T[], value: string | undefined): T | undefined =>
  values.includes(value as T) ? (value as T) : undefined;

/** Unknown or malformed values are ignored rather than refused: a URL is typed by people. */
export function parseBoardFilters(params: Params): BoardFilters {
  const queue = read(params, "queue");
  const q = read(params, "q")?.trim().slice(0, 200);
  const owner = read(params, "owner");
  return {
    queue: queue && QUEUE.test(queue) ? queue : undefined,
    status: oneOf(STATUSES, read(params, "status")),
    mine: read(params, "mine") === "1" || owner === "me",
    ...(owner === "none" ? { unowned: true } : {}),
    needsCheck: read(params, "check") === "1",
    ...(q ? { q } : {}),
    ...optional("priority", priorityFilter(read(params, "priority"))),
    ...optional("age", oneOf(Object.keys(AGE_FILTERS) as AgeFilter[], read(params, "age"))),
    ...optional("sort", oneOf(SORTS, read(params, "sort"))),
    ...optional("view", oneOf(["columns", "list"] as const, read(params, "view"))),
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

export function boardSearch(filters: BoardFilters): string {
  const params = new URLSearchParams();
  if (filters.q) params.set("q", filters.q);
  if (filters.queue) params.set("queue", filters.queue);
  if (filters.status) params.set("status", filters.status);
  if (filters.mine) params.set("mine", "1");
  else if (filters.unowned) params.set("owner", "none");
  if (filters.needsCheck) params.set("check", "1");
  if (filters.priority) params.set("priority", filters.priority);
  if (filters.age) params.set("age", filters.age);
  if (filters.sort) params.set("sort", filters.sort);
  if (filters.view) params.set("view", filters.view);
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** The filter part of the board's state: what the lists and the counts share. */
export function listFilterOf(filters: BoardFilters): Omit<ListFilter, "status"> {
  return {
    ...(filters.queue ? { queue: filters.queue } : {}),
    ...(filters.mine ? { mine: true } : filters.unowned ? { unowned: true } : {}),
    ...(filters.needsCheck ? { needsCheck: true } : {}),
    ...(filters.q ? { q: filters.q } : {}),
    ...(filters.priority ? { minPriority: minPriorityOf(filters.priority) } : {}),
    ...(filters.age ? { olderThan: AGE_FILTERS[filters.age] } : {}),
    ...(filters.sort ? { sort: filters.sort } : {}),
  };
}

/** The columns a board with these filters shows. */
export function boardColumns(filters: BoardFilters): ListFilter[] {
  const shared = listFilterOf(filters);
  return (filters.status ? [filters.status] : STATUSES).map((status) => ({ status, ...shared }));
}

/** Any filter beyond the queue and status: the board then says how many match in all. */
export function isFiltered(filters: BoardFilters): boolean {
  return !!(filters.mine || filters.unowned || filters.needsCheck || filters.q || filters.priority || filters.age);
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
/** Done and Cancelled only grow: the board shows the recent few, and more on request. */
export const FEW = 5;
const FEW_STATUSES: TaskStatus[] = ["done", "cancelled"];

export const pageSizeFor = (status: TaskStatus) => (FEW_STATUSES.includes(status) ? FEW : PAGE_SIZE);

/** The counts' query (GET /tasks/counts) for the board's filter. */
export function countsQuery(filter: Omit<ListFilter, "status" | "sort">) {
  return {
    ...(filter.queue ? { queue: filter.queue } : {}),
    ...(filter.mine ? { owner: "me" as const } : filter.unowned ? { owner: "none" as const } : {}),
    ...(filter.needsCheck ? { needsCheck: "true" as const } : {}),
    ...(filter.q ? { q: filter.q } : {}),
    ...(filter.minPriority !== undefined ? { minPriority: filter.minPriority } : {}),
    ...(filter.olderThan ? { olderThan: filter.olderThan } : {}),
  };
}

/** The API query of one list, and of its next page. */
export function listQuery(filter: ListFilter, cursor?: string | null) {
  return {
    status: filter.status,
    ...(filter.sort ? { sort: filter.sort } : { order: orderFor(filter.status) }),
    limit: cursor ? PAGE_SIZE : pageSizeFor(filter.status),
    ...countsQuery(filter),
    ...(cursor ? { cursor } : {}),
  };
}
