import type { z } from "zod";
import type { endpoints, EndpointId } from "@/lib/http/endpoints";
import type { Loose } from "@/lib/http/wire";

// The typed client's types, derived from the registry (lib/http/endpoints.ts): what each
// endpoint takes is its body or query schema's type, what it answers its success schema's.
// The objects themselves (Task, Queue, …) are lib/http/wire.ts's, the one wire type each.

export type { ActorRef, Checkpoint, Effect, FenceVerdict, Handoff, Health, HeldReservation, Queue, Question, Readiness, Schedule, Task, TaskCounts, TaskEvent, TaskStatus, Webhook, WebhookDelivery } from "@/lib/http/wire";

type Entry<K extends EndpointId> = (typeof endpoints)[K];
export type WithBody = { [K in EndpointId]: Entry<K> extends { body: z.ZodType } ? K : never }[EndpointId];
type WithQuery = { [K in EndpointId]: Entry<K> extends { query: z.ZodType } ? K : never }[EndpointId];
type WithAnswer = { [K in EndpointId]: Entry<K>["success"] extends { schema: z.ZodType } ? K : never }[EndpointId];

/** What an endpoint takes as its JSON body. */
export type Body<K extends WithBody> = Entry<K> extends { body: infer S extends z.ZodType } ? Loose<z.input<S>> : never;
/** What an endpoint reads from its query string (as the server parses it: numbers are numbers). */
export type Query<K extends WithQuery> = Entry<K> extends { query: infer S extends z.ZodType } ? z.output<S> : never;
/** The JSON an endpoint answers with on success. */
export type Answer<K extends WithAnswer> = Entry<K>["success"] extends { schema: infer S extends z.ZodType } ? Loose<z.output<S>> : never;

/** An owner call's options: its body less the version, which the TaskRef gives. */
export type CallOptions<K extends WithBody> = Omit<Body<K>, "version">;

/** What an owner call needs of a task: a Task itself will do. */
export interface TaskRef {
  id: string;
  version: number;
}

/** What a release or fail tells the next claimant: summary 1..2000, next ≤ 2000, ≤ 20 artifacts of ≤ 500. */
export type HandoffNote = NonNullable<Body<"releaseTask">["handoff"]>;

/** POST /tasks: title, and optionally dependsOn (≤ 50 ids), notBefore (ISO 8601), an idempotencyKey (1..200, unique per queue). */
export type NewTask = Body<"createTask">;

/** What an edit may change (PATCH /tasks/{id}); name at least one. */
export type TaskChanges = Omit<Body<"editTask">, "version">;

/** The filters a list and the counts share (GET /tasks, GET /tasks/counts); `q` searches title, description and payload. */
export type TaskFilterQuery = Query<"countTasks">;

/** GET /tasks: the filters, status, `order` (v1) or `sort` (not both), dependsOn, limit and cursor. */
export type ListTasksQuery = Query<"listTasks">;

/** A queue's settings, as a create sets them and PATCH /queues/{name} changes them (maxAttemptSeconds null lifts the ceiling). */
export type QueueSettings = Omit<Body<"createQueue">, "name" | "paused">;

/** claimNext's options; `start` claims and starts in one transaction (a needs_check task comes back claimed, not started). */
export type ClaimOptions = Body<"claimNext">;

/** One item of completeMany's answer, in the order given. */
export type CompletionResult = Answer<"completions">["results"][number];

/** POST /tasks/{id}/claim-tokens: `claimToken` (cbc_…, shown once), its ops, task and attempt. */
export type ClaimToken = Answer<"createClaimToken">;
export type { ClaimOp } from "@/lib/tasks/model";
