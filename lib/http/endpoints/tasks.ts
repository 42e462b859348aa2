import { z } from "zod";
import { countTasksQuery, listEventsQuery, listTasksQuery } from "@/lib/tasks/model";
import * as input from "@/lib/tasks/model";
import { eventObject, readinessObject, heldReservationObject, taskCountsObject, taskObject, taskResponse } from "../wire";
import { leaseObject } from "../lease-wire";
import { type Endpoint, READ } from "./shape";

// Tasks themselves: create, edit, their dependencies and comments, the reads of the board, the claims.
export const tasksEndpoints = {
  createTask: {
    operationId: "createTask", method: "POST", path: "/tasks", summary: "Create a task (queued, version 1)",
    body: input.createTaskInput,
    success: { status: 201, description: "The new task", schema: taskResponse },
    alsoAnswers: [{ status: 200, description: "An idempotent retry: the task an earlier create with the same idempotencyKey and fields made (no new event)", schema: taskResponse }],
    errors: [400, 404, 409, 413],
  },
  addDependencies: {
    operationId: "addDependencies", method: "POST", path: "/tasks/{id}/dependencies",
    summary: "Add dependencies to a queued task (creator, last holder or supervisor; a cycle is refused: dependency_cycle)",
    body: input.dependenciesBody,
    success: { status: 200, description: "The task after the call", schema: taskResponse }, errors: [400, 403, 404, 409, 413],
  },
  removeDependency: {
    operationId: "removeDependency", method: "DELETE", path: "/tasks/{id}/dependencies/{dep}",
    summary: "Remove one dependency from a queued task (version-fenced; creator, last holder or supervisor): a dependency_removed event",
    body: input.removeDependencyBody,
    success: { status: 200, description: "The task after the call", schema: taskResponse }, errors: [400, 403, 404, 409, 413],
  },
  taskReadiness: {
    operationId: "taskReadiness", method: "GET", path: "/tasks/{id}/readiness",
    summary: "Whether the caller could claim the task now, every reason not, and when time alone is in the way",
    session: true,
    success: { status: 200, description: "The task's readiness for the caller", schema: readinessObject }, errors: [400, 404],
  },
  taskLease: {
    operationId: "taskLease", method: "GET", path: "/tasks/{id}/lease",
    summary: "Why the task is held, or not: its lease's state, holder, renewals, progress and reason codes",
    session: true,
    success: { status: 200, description: "The task's lease", schema: leaseObject }, errors: [400, 404],
  },
  listTasks: {
    operationId: "listTasks", method: "GET", path: "/tasks",
    summary: "List tasks, keyset-paginated: filter, search (q) and sort; oldest first by default",
    roles: READ, session: true, query: listTasksQuery,
    success: { status: 200, description: "A page of tasks", schema: z.object({ tasks: z.array(taskObject), nextCursor: z.string().nullable() }) },
    errors: [400],
  },
  countTasks: {
    operationId: "countTasks", method: "GET", path: "/tasks/counts",
    summary: "Live counts: the filter's tasks per status, and every queue's per status (each stops at `cap` + 1)",
    roles: READ, session: true, query: countTasksQuery,
    success: { status: 200, description: "The counts", schema: taskCountsObject },
    errors: [400],
  },
  listReservations: {
    operationId: "listReservations", method: "GET", path: "/reservations",
    summary: "Every reservation held now: by resource, with the task that holds it, its owner and lease",
    session: true,
    success: { status: 200, description: "What is held", schema: z.object({ reservations: z.array(heldReservationObject) }) },
    errors: [],
  },
  getTask: {
    operationId: "getTask", method: "GET", path: "/tasks/{id}", summary: "One task",
    roles: READ, session: true, success: { status: 200, description: "The task", schema: taskResponse }, errors: [400, 404],
  },
  editTask: {
    operationId: "editTask", method: "PATCH", path: "/tasks/{id}",
    summary: "Edit a queued or escalated task (version-fenced; creator, last holder or supervisor); once it has been claimed, its queue, notBefore, reserves and budget only a supervisor changes",
    body: input.editTaskBody,
    success: { status: 200, description: "The task after the edit (unchanged, same version, when the edit changed nothing)", schema: taskResponse },
    errors: [400, 403, 404, 409, 413],
  },
  addComment: {
    operationId: "addComment", method: "POST", path: "/tasks/{id}/comments",
    summary: "Comment on a task: a commented event (no status or version change)",
    body: input.commentBody,
    success: { status: 201, description: "The comment, as the event it is", schema: z.object({ event: eventObject }) },
    errors: [400, 404, 413],
  },
  listTaskEvents: {
    operationId: "listTaskEvents", method: "GET", path: "/tasks/{id}/events", summary: "A task's history, oldest first",
    roles: READ, session: true, query: listEventsQuery,
    success: { status: 200, description: "A page of events", schema: z.object({ events: z.array(eventObject), nextCursor: z.string().nullable() }) },
    errors: [400, 404],
  },
  claimNext: {
    operationId: "claimNext", method: "POST", path: "/claims", summary: "Claim the next task of a queue (optionally starting it)",
    body: input.claimNextInput,
    success: { status: 200, description: "The claimed task", schema: taskResponse },
    alsoAnswers: [{ status: 204, description: "Nothing is claimable (no body): at once, or at the end of `wait`" }],
    errors: [400, 403, 413, 429],
  },
  claimBatch: {
    operationId: "claimBatch", method: "POST", path: "/claims/batch", summary: "Claim up to `limit` tasks in one transaction",
    body: input.claimBatchInput,
    success: { status: 200, description: "The claimed tasks (possibly none)", schema: z.object({ tasks: z.array(taskObject) }) },
    alsoAnswers: [{ status: 204, description: "With `wait`: nothing became claimable before the wait ended (no body)" }],
    errors: [400, 403, 413, 429],
  },
} satisfies Record<string, Endpoint>;
