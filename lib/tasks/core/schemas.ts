import { z } from "zod";
import { reserves } from "./reservation";
import { budget, raiseBudgetBody, spend } from "./budget";
export { raiseBudgetBody };
import { LIMITS } from "@/lib/limits";

// One schema per input, shared by the engine, the server actions and the API routes
// (and the OpenAPI document is generated from them). Bad input stops here, before SQL.

/** A queue's `review` setting: which completions become in_review (db/schema/enums.ts review_policy). */
export const REVIEW_POLICIES = ["none", "agents", "everyone"] as const;

const INT32_MAX = 2_147_483_647;
const BIGINT_MAX = 9_223_372_036_854_775_807n;

/** No NUL (PostgreSQL text cannot hold it) and no lone UTF-16 surrogate. */
function isStorableText(value: string): boolean {
  return !value.includes("\u0000") && value.isWellFormed();
}

export const text = (max: number, min = 0) =>
  z
    .string()
    .min(min, min === 1 ? "must not be empty" : `must be at least ${min} characters`)
    .max(max, `must be at most ${max} characters`)
    .refine(isStorableText, "must not contain NUL characters or invalid UTF-16");

/** Every string and key inside a JSON value must be storable too. */
function isStorableJson(value: unknown, depth = 0): boolean {
  if (depth > 32) return false;
  if (typeof value === "string") return isStorableText(value);
  if (Array.isArray(value)) return value.every((item) => isStorableJson(item, depth + 1));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).every(([key, item]) => isStorableText(key) && isStorableJson(item, depth + 1));
  }
  return true;
}

const MAX_JSON_BYTES = 64 * 1024;

const storableJson = <T extends z.ZodType>(schema: T) =>
  schema
  // abort: the size check stringifies, which throws on a cycle that isStorableJson already refused.
  .refine(isStorableJson, {
    message: "must not contain NUL characters or invalid UTF-16, nor nest deeper than 32 levels",
    abort: true,
  })
  .refine((value) => Buffer.byteLength(JSON.stringify(value) ?? "") <= MAX_JSON_BYTES, "must be at most 64 KiB of JSON");

export const jsonValue = storableJson(z.json());
export const jsonObject = storableJson(z.record(z.string(), z.json()));

/** A row's id (a bigint) as a string: one rule for tasks', questions' and effects' ids. */
export const rowId = (what: string) => z
  .string()
  // abort: zod runs later checks after a failed one, and BigInt("abc") would throw.
  .regex(/^[1-9][0-9]{0,18}$/, { message: `must be ${what} (a positive whole number as a string)`, abort: true })
  .refine((value) => BigInt(value) <= BIGINT_MAX, "is out of range");

export const taskId = rowId("a task id");

/** A task id in a URL path: `/tasks/{id}`. */
export const taskPath = z.object({ id: taskId });

export const version = z.number().int("must be a whole number").min(1).max(INT32_MAX);

export const queueName = z
  .string()
  .regex(/^[a-z0-9._-]{1,64}$/, "must be 1 to 64 characters of a-z, 0-9, '.', '_' or '-' (no spaces or capitals)");

export const priority = z.number().int("must be a whole number").min(LIMITS.priority.min).max(LIMITS.priority.max);
export const leaseSeconds = z.number().int("must be a whole number").min(LIMITS.leaseSeconds.min).max(LIMITS.leaseSeconds.max);

/** The work graph's inputs (docs/engine.md). */
/**
 * Characters a reader cannot see but a terminal or a text layout obeys: C0 and C1 controls
 * (escape sequences, bells, new lines) and the bidirectional marks, embeddings, overrides and
 * isolates that make "exe.pdf" read as "fdp.exe" (Trojan Source, CVE-2021-42574).
 */
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/;
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
/** Multi-line text keeps new lines and tabs (and CR), never the rest. */
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

/** One line people read in lists, timelines and terminals: titles and names. */
export const lineText = (max: number, min = 0) =>
  text(max, min).refine((value) => !CONTROL.test(value) && !BIDI.test(value), "must be one line without control characters or bidirectional overrides");

/** Text of several lines (a description): new lines and tabs, no other control or bidi character. */
export const pageText = (max: number, min = 0) =>
  text(max, min).refine((value) => !CONTROL_BUT_LINES.test(value) && !BIDI.test(value), "must not contain control characters (other than new lines and tabs) or bidirectional overrides");

export const MAX_DEPENDENCIES = LIMITS.dependencies;
export const dependsOn = z.array(taskId).max(MAX_DEPENDENCIES, `must list at most ${MAX_DEPENDENCIES} task ids`);
// A time PostgreSQL keeps as it was written: ISO 8601 allows year 0000, which timestamptz
// refuses (it has no year 0) — a 500 at the database until this said it first.
/** A task's title: one line, and something to read (a title of blanks is refused, as a comment of blanks is). */
export const title = lineText(LIMITS.title, 1).refine((value) => value.trim().length > 0, "must not be only blanks");

export const notBefore = z.iso
  .datetime({ offset: true, message: "must be an ISO 8601 time, e.g. 2026-12-01T14:30:00Z" })
  .refine((value) => {
    const year = new Date(value).getUTCFullYear();
    return year >= 1 && year <= 9999;
  }, "must be a time from the year 1 to 9999 (in UTC)");
export const idempotencyKey = text(LIMITS.idempotencyKey, 1);

export const createTaskInput = z.strictObject({
  title,
  description: pageText(LIMITS.description).optional(),
  queue: queueName.optional(),
  priority: priority.optional(),
  payload: jsonObject.optional(),
  dependsOn: dependsOn.optional(),
  notBefore: notBefore.optional(),
  idempotencyKey: idempotencyKey.optional(),
  /** Taken while the task is held (docs/contract.md#reservations). */
  reserves: reserves.optional(),
  /** A limit on what holders may spend on it (docs/contract.md#budgets). */
  budget: budget.optional(),
});

export const claimNextInput = z.strictObject({
  queue: queueName.optional(),
  leaseSeconds: leaseSeconds.optional(),
  start: z.boolean().optional(),
  /** For claimers that will not confirm checks: leave needs_check tasks to someone who will. */
  skipNeedsCheck: z.boolean().optional(),
  /**
   * Seconds to hold the request while nothing is claimable (docs/claiming.md "Waiting for
   * work"). The surface waits; the engine's claim ignores it.
   */
  wait: z
    .number()
    .int("must be a whole number of seconds")
    .min(0, `must be from 0 to ${LIMITS.claimWaitSeconds} seconds`)
    .max(LIMITS.claimWaitSeconds, `must be from 0 to ${LIMITS.claimWaitSeconds} seconds`)
    .optional(),
});

export const claimBatchInput = claimNextInput.extend({
  limit: z.number().int("must be a whole number").min(1).max(LIMITS.batch),
});

/** A hand-off note on release or fail: what was done, what comes next, links to what was made. */
export const handoffInput = z.strictObject({
  summary: text(LIMITS.handoffSummary, 1),
  next: text(LIMITS.handoffNext).optional(),
  artifacts: z.array(text(LIMITS.artifact)).max(LIMITS.artifacts, `must have at most ${LIMITS.artifacts} items`).optional(),
});

export const claimBody = z.strictObject({ version });
export const startBody = z.strictObject({ version, confirmCheck: z.boolean().optional() });
export const heartbeatBody = z.strictObject({ version, progress: jsonValue.optional(), spend: spend.optional() });
export const sideEffectBody = z.strictObject({ version, description: text(LIMITS.reason, 1) });
export const releaseBody = z.strictObject({ version, handoff: handoffInput.optional() });
export const completeBody = z.strictObject({
  version,
  result: jsonValue.optional(),
  /** What the attempt spent since its last heartbeat (added to the task's `spent`). */
  spend: spend.optional(),
  /** Claim (and start) the next task in the same transaction. */
  next: claimNextInput.optional(),
});
/** POST /completions: each item its own guarded write, all in one transaction. */
export const completionsInput = z.strictObject({
  tasks: z
    .array(z.strictObject({ id: taskId, version, result: jsonValue.optional(), spend: spend.optional() }))
    .min(1, "must list at least one task")
    .max(LIMITS.batch, `must list at most ${LIMITS.batch} tasks`)
    .superRefine((items, ctx) => {
      const seen = new Set<string>();
      items.forEach((item, index) => {
        if (seen.has(item.id)) ctx.addIssue({ code: "custom", path: [index, "id"], message: `repeats task ${item.id} (each task at most once a batch)` });
        seen.add(item.id);
      });
    }),
});
export const failBody = z.strictObject({ version, reason: text(LIMITS.reason, 1), handoff: handoffInput.optional() });
export const superviseBody = z.strictObject({ version, reason: text(LIMITS.reason).optional() });

export const dependenciesBody = z.strictObject({
  version,
  dependsOn: dependsOn.min(1, "must list at least one task id"),
});


/** PATCH /tasks/{id}: the fields an edit may change (docs/api.md); at least one must be named. */
const editFields = {
  version,
  title: title.optional(),
  description: pageText(LIMITS.description).optional(),
  priority: priority.optional(),
  payload: jsonObject.optional(),
  /** Moves the task to another open queue (issue 27: routing work). */
  queue: queueName.optional(),
  /** Not claimable before this time; null removes it. */
  notBefore: notBefore.nullable().optional(),
  /** Replaces what the task reserves; [] reserves nothing. */
  reserves: reserves.optional(),
  /** Sets the budget; null removes it. */
  budget: budget.nullable().optional(),
};
export const EDITABLE_FIELDS = ["title", "description", "priority", "payload", "queue", "notBefore", "reserves", "budget"] as const;
const namesAField = (body: Partial<Record<(typeof EDITABLE_FIELDS)[number], unknown>>) => EDITABLE_FIELDS.some((f) => body[f] !== undefined);
const NAMES_A_FIELD = { message: `must name at least one of ${EDITABLE_FIELDS.join(", ")}` };
/** An edit must change something it names: a refinement, added after any `.extend`. */
export const requireAnEdit = <T extends z.ZodType<Partial<Record<(typeof EDITABLE_FIELDS)[number], unknown>>>>(schema: T) =>
  schema.refine(namesAField, NAMES_A_FIELD);
export const editTaskFields = z.strictObject(editFields);
export const editTaskBody = requireAnEdit(editTaskFields);

/** A comment: 1..LIMITS.comment characters, not only blanks. */
export const COMMENT_MAX = LIMITS.comment;
export const commentBody = z.strictObject({
  body: text(COMMENT_MAX, 1).refine((value) => value.trim().length > 0, "must not be only blanks"),
});

const withTaskId = <T extends z.ZodRawShape>(body: z.ZodObject<T>) => body.extend({ taskId });

export const claimInput = withTaskId(claimBody);
export const startInput = withTaskId(startBody);
export const heartbeatInput = withTaskId(heartbeatBody);
export const sideEffectInput = withTaskId(sideEffectBody);
export const releaseInput = withTaskId(releaseBody);
export const completeInput = withTaskId(completeBody.omit({ next: true }));
export const completeNextInput = withTaskId(completeBody);
export const failInput = withTaskId(failBody);
export const superviseInput = withTaskId(superviseBody);
export const dependenciesInput = withTaskId(dependenciesBody);
/** DELETE /tasks/{id}/dependencies/{dep} {version}: the body; the task and the dependency come from the path. */
export const removeDependencyBody = z.strictObject({ version });
export const removeDependencyInput = withTaskId(removeDependencyBody).extend({ dependency: taskId });
export const readinessInput = z.strictObject({ taskId });
export const editTaskInput = requireAnEdit(withTaskId(editTaskFields));
export const commentInput = withTaskId(commentBody);
export const raiseBudgetInput = withTaskId(raiseBudgetBody);
export const queuePausedInput = z.strictObject({ queue: queueName, paused: z.boolean() });

export const sweepInput = z.strictObject({ queue: queueName.optional() });
export const queueInput = z.strictObject({ queue: queueName });

/** A queue's settings, as a create sets them and a change replaces them (the database's own bounds). */
const queueSettingsFields = {
  leaseSeconds: leaseSeconds.optional(),
  maxFailures: z.number().int("must be a whole number").min(1).max(100).optional(),
  expiryThreshold: z.number().int("must be a whole number").min(1).max(1_000_000).optional(),
  expiryWindowSeconds: z.number().int("must be a whole number").min(1).max(86_400).optional(),
  retryDelaySeconds: z.number().int("must be a whole number").min(0).max(86_400).optional(),
  /** After a lease lapses, nobody may claim the task until the lapse + this (readiness lock_delay). */
  lockDelaySeconds: z.number().int("must be a whole number").min(LIMITS.lockDelaySeconds.min).max(LIMITS.lockDelaySeconds.max).optional(),
  /** A person's leases are renewed while they were active in the app within this; 0: the lease alone (docs/attention.md). */
  personIdleSeconds: z.number().int("must be a whole number").min(LIMITS.personIdleSeconds.min).max(LIMITS.personIdleSeconds.max).optional(),
  /** After a person's lease lapses, agents may claim the task only this much later (readiness person_grace). */
  personGraceSeconds: z.number().int("must be a whole number").min(LIMITS.personGraceSeconds.min).max(LIMITS.personGraceSeconds.max).optional(),
  /** Renewals in a row without progress an attempt may make; the next is refused as no_progress (0: off; docs/leases.md). */
  maxRenewalsWithoutProgress: z.number().int("must be a whole number").min(LIMITS.maxRenewalsWithoutProgress.min).max(LIMITS.maxRenewalsWithoutProgress.max).optional(),
  /** How long a question to a person waits for its answer before the task goes to the inbox (docs/questions.md). */
  questionTimeoutSeconds: z.number().int("must be a whole number").min(LIMITS.questionTimeoutSeconds.min).max(LIMITS.questionTimeoutSeconds.max).optional(),
  claimants: z.enum(["anyone", "people", "agents"], "must be anyone, people or agents").optional(),
  commenters: z.enum(["anyone", "people", "supervisors"], "must be anyone, people or supervisors").optional(),
  /** Which completions wait for a reviewer (review before done, docs/engine.md). */
  review: z.enum(REVIEW_POLICIES, "must be none, agents or everyone").optional(),
  /** null lifts the ceiling. */
  maxAttemptSeconds: z.number().int("must be a whole number").min(LIMITS.maxAttemptSeconds.min).max(LIMITS.maxAttemptSeconds.max).nullable().optional(),
  /** What the queue is for, in a supervisor's words. */
  description: text(LIMITS.queueDescription).optional(),
};

export const queueSettingsInput = z.strictObject({ queue: queueName, ...queueSettingsFields });

/** Supervisor: a new queue, on purpose (docs/engine.md "Queue lifecycle"). */
export const createQueueInput = z.strictObject({ name: queueName, ...queueSettingsFields, paused: z.boolean().optional() });

/** PATCH /queues/{name}: settings, description, paused and archived at once; at least one. */
export const updateQueueBody = z
  .strictObject({ ...queueSettingsFields, paused: z.boolean().optional(), archived: z.boolean().optional() })
  .refine((body) => Object.values(body).some((v) => v !== undefined), "must name at least one of the queue's settings, description, paused or archived");
export const updateQueueInput = z.strictObject({ queue: queueName, ...queueSettingsFields, paused: z.boolean().optional(), archived: z.boolean().optional() });

/** POST /tasks/{id}/review: the decision on the submission whose digest the reviewer read. */
export const reviewBody = z.strictObject({
  version,
  decision: z.enum(["approve", "reject"], "must be approve or reject"),
  digest: z.string().regex(/^[0-9a-fA-F]{64}$/, "must be the submission's digest (64 hexadecimal characters of SHA-256)"),
  note: pageText(LIMITS.reviewNote).optional(),
});
export const reviewInput = withTaskId(reviewBody);
export type ReviewInput = z.infer<typeof reviewInput>;

/** A queue name in a URL path: `/queues/{name}`. */
export const queuePath = z.object({ name: queueName });

/** The Claimboard-Instance request header: which process of a token's agent calls (host:pid, …). */
export const instanceHeader = text(200, 1).regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces");

export type CreateTaskInput = z.infer<typeof createTaskInput>;
export type ClaimNextInput = z.infer<typeof claimNextInput>;
export type ClaimBatchInput = z.infer<typeof claimBatchInput>;
export type ClaimInput = z.infer<typeof claimInput>;
export type StartInput = z.infer<typeof startInput>;
export type HeartbeatInput = z.infer<typeof heartbeatInput>;
export type SideEffectInput = z.infer<typeof sideEffectInput>;
export type ReleaseInput = z.infer<typeof releaseInput>;
export type CompleteInput = z.infer<typeof completeInput>;
export type CompleteNextInput = z.infer<typeof completeNextInput>;
export type CompletionsInput = z.infer<typeof completionsInput>;
export type FailInput = z.infer<typeof failInput>;
export type SuperviseInput = z.infer<typeof superviseInput>;
export type SweepInput = z.infer<typeof sweepInput>;
export type DependenciesInput = z.infer<typeof dependenciesInput>;
export type QueueSettingsInput = z.infer<typeof queueSettingsInput>;
export type CreateQueueInput = z.infer<typeof createQueueInput>;
export type UpdateQueueInput = z.infer<typeof updateQueueInput>;
export type HandoffInput = z.infer<typeof handoffInput>;
export type EditTaskInput = z.infer<typeof editTaskInput>;
export type CommentInput = z.infer<typeof commentInput>;
