import { z } from "zod";
import { LIMITS } from "@/lib/limits";
import { STATUSES } from "../core/machine";
import { queueName, taskId } from "../core/schemas";

// The query strings of the task reads (GET /tasks, /tasks/counts, /tasks/{id}/events): pure
// zod, so the API's contract (lib/http/endpoints.ts) and the typed client can hold them
// without the queries that run them.

/** The board's search text (`?q=`); lib/tasks/reads/search.ts turns it into a tsquery. */
const searchText = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(LIMITS.search, `must be at most ${LIMITS.search} characters`);

const limit = z.coerce.number().int("must be a whole number").min(1).max(100);

/**
 * How a page of tasks is ordered. `id` (the default) is oldest first; `newest` is the
 * reverse; `priority` is claim order (priority DESC, created_at, id) — what claim-next
 * would hand out next, the order a board shows queued and held tasks in. The cursor is
 * the id of the last task seen: priority and created_at never change, so a task id pins a
 * position in claim order too.
 */
export const taskOrders = ["id", "newest", "priority"] as const;
export type TaskOrder = (typeof taskOrders)[number];

/**
 * v1.1's `sort=` (docs/api.md): `priority` is claim order (the same as order=priority);
 * `created` is newest created first; `updated` is most recently changed first. `updated`
 * is the one order by a value that moves, so its cursor carries the value it was at.
 */
export const taskSorts = ["priority", "created", "updated"] as const;
export type TaskSort = (typeof taskSorts)[number];

/** A nextCursor: a task id, or for sort=updated `<id>.<updated_at in microseconds>`. */
const cursor = z
  .string()
  .regex(/^[1-9][0-9]{0,18}(\.[0-9]{1,19})?$/, { message: "must be a nextCursor from an earlier page", abort: true })
  .refine((value) => BigInt(value.split(".")[0]!) <= 9223372036854775807n, "is out of range");

/** What a list and the counts filter on (the counts take all but status). */
export const taskFilterShape = {
  queue: queueName.optional(),
  /** `me`: the tasks the caller holds (or held last); `none`: tasks nobody holds. */
  owner: z.enum(["me", "none"], "must be 'me' or 'none'").optional(),
  needsCheck: z.enum(["true", "false"], "must be 'true' or 'false'").optional(),
  /** Full-text search over title, description and payload (lib/tasks/reads/search.ts). */
  q: searchText.optional(),
  minPriority: z.coerce.number().int("must be a whole number").min(-1000).max(1000).optional(),
  /** Tasks created at least this many seconds ago (the board's age filter). */
  olderThan: z.coerce.number().int("must be a whole number").min(1).max(31_536_000).optional(),
};

export const listTasksQuery = z
  .strictObject({
    status: z.enum(STATUSES).optional(),
    ...taskFilterShape,
    order: z.enum(taskOrders, "must be 'id', 'newest' or 'priority'").optional(),
    sort: z.enum(taskSorts, "must be 'priority', 'created' or 'updated'").optional(),
    limit: limit.optional(),
    cursor: cursor.optional(),
    /** The work graph's other direction: tasks that depend on this one. */
    dependsOn: taskId.optional(),
  })
  .refine((query) => !(query.sort && query.order), { path: ["sort"], message: "cannot be combined with order (sort is order's v1.1 name: give one)" })
  // `<id>.<micros>` is a sort=updated position; any other order's cursor is a task id.
  .refine((query) => !query.cursor?.includes(".") || query.sort === "updated", {
    path: ["cursor"], message: "must be a nextCursor from an earlier page of the same sort",
  });

export type ListTasksQuery = z.infer<typeof listTasksQuery>;

export const listEventsQuery = z.strictObject({
  after: taskId.optional(),
  limit: limit.optional(),
});

/** The list's filters, without status (counted per status), order or paging. */
export const countTasksQuery = z.strictObject(taskFilterShape);
export type CountTasksQuery = z.infer<typeof countTasksQuery>;
