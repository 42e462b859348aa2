import type { z } from "zod";
import type { TaskStatus } from "@/db/schema";
import type { leaseObject } from "@/lib/http/lease-wire";
import type { ActorRef, Task } from "@/lib/http/wire";
import type { TaskEvent } from "@/lib/tasks";
import { BOARD_ORDER, HELD } from "@/lib/tasks/model";

/** A value as it crosses the wire as JSON: Dates become ISO 8601 strings. */
export type Wire<T> = T extends Date
  ? string
  : T extends (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;

/** A task as the browser holds it: the API's task object; `pending` marks an optimistic guess not yet confirmed. */
export type TaskView = Task & { pending?: string };
/** An event as the browser holds it: the history's event, its payload typed by its type (lib/tasks/core/event-payloads.ts). */
export type EventView = Wire<TaskEvent>;
export type { ActorRef, TaskStatus };
/** GET /tasks/{id}/lease's answer (lib/http/lease-wire.ts). */
export type LeaseView = z.infer<typeof leaseObject>;

export interface PageView<T> {
  items: T[];
  nextCursor: string | null;
}

/** Dates to strings, the same shape the API answers with. */
export function toWire<T>(value: T): Wire<T> {
  return JSON.parse(JSON.stringify(value)) as Wire<T>;
}

/** The statuses in the board's order, and the held ones: the machine's (lib/tasks/core/machine.ts). */
export const STATUSES = BOARD_ORDER;
export { HELD };

/** The signed-in person, as the client needs to know them. */
export interface Viewer {
  actorId: string;
  name: string;
  role: "staff" | "supervisor";
}
