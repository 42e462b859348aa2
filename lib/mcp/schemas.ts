import { z } from "zod";
import { eventObject, readinessObject, taskObject } from "@/lib/http/endpoints";
import { listEventsQuery, listTasksQuery } from "@/lib/tasks/model";
import * as api from "@/lib/tasks/model";
import { LIMITS, limitText } from "@/lib/limits";

// The tools' inputs are the API's own schemas (lib/tasks/core/schemas.ts, the query schemas),
// with the task in the path named `id`: nothing here adds or loosens a rule. The JSON
// Schemas a client lists are generated from them.

const withId = <T extends z.ZodRawShape>(body: z.ZodObject<T>) => body.extend({ id: api.taskId });

export const toolInput = {
  claimNext: api.claimNextInput,
  claim: withId(api.claimBody),
  start: withId(api.startBody),
  heartbeat: withId(api.heartbeatBody),
  sideEffect: withId(api.sideEffectBody),
  complete: withId(api.completeBody),
  fail: withId(api.failBody),
  release: withId(api.releaseBody),
  create: api.createTaskInput,
  // Strict like every body: an argument the tool does not take is refused, not dropped.
  get: z.strictObject(api.taskPath.shape),
  readiness: z.strictObject(api.taskPath.shape),
  list: listTasksQuery,
  history: withId(listEventsQuery),
  edit: api.requireAnEdit(withId(api.editTaskFields)),
  comment: withId(api.commentBody),
  /** list_queues takes nothing (strict: an argument is refused, not dropped). */
  listQueues: z.strictObject({}),
};

const page = <T extends z.ZodType>(key: string, item: T) => z.object({ [key]: z.array(item), nextCursor: z.string().nullable() });

export const toolOutput = {
  task: z.object({ task: taskObject }),
  /** complete_task: with `next` in the arguments, also the task claimed next (null: none claimable). */
  completed: z.object({ task: taskObject, next: taskObject.nullable().optional() }),
  /** claim_next_task: null where the API answers 204 (nothing claimable). */
  maybeTask: z.object({ task: taskObject.nullable() }),
  tasks: page("tasks", taskObject),
  events: page("events", eventObject),
  readiness: readinessObject,
  event: z.object({ event: eventObject }),
  /** list_queues: the open queues, from GET /tasks/counts (the board's pickers read the same). */
  queues: z.object({
    queues: z.array(z.object({
      name: z.string(),
      description: z.string(),
      claimants: z.enum(["anyone", "people", "agents"]),
      paused: z.boolean(),
      queued: z.number().int(),
      held: z.number().int(),
    })),
    cap: z.number().int(),
  }),
};

/**
 * A JSON Schema (draft-07, what the SDK's own validator speaks) of a zod schema, without
 * the registry's `$ref`s. A free JSON value (`z.json()`, recursive) becomes "any of the six
 * JSON types": a model reads that better than a self-referencing definition.
 */
export function jsonSchema(schema: z.ZodType, io: "input" | "output", hints: Record<string, string> = {}): Record<string, unknown> & { type: "object" } {
  const out = z.toJSONSchema(schema, {
    io,
    target: "draft-7",
    metadata: z.registry(),
    unrepresentable: "any",
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema._zod.def.type !== "lazy") return;
      for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Record<string, unknown>)[key];
      jsonSchema.type = ["object", "array", "string", "number", "boolean", "null"];
      jsonSchema.description = "any JSON value";
    },
  }) as Record<string, unknown>;
  delete out.$schema;
  const definitions = (out.definitions ?? {}) as Record<string, unknown>;
  delete out.definitions;
  const tidied = tidy(out, definitions, io) as Record<string, unknown> & { type: "object" };
  const properties = (tidied.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const [name, property] of Object.entries(properties)) {
    const hint = hints[name] ?? FIELD_HINTS[name];
    if (hint && !property.description) property.description = hint;
  }
  return tidied;
}

/** What each argument means, for a model reading the schema (the rules stay the schemas'). */
const FIELD_HINTS: Record<string, string> = {
  id: 'The task\'s id, a string of digits such as "42".',
  version:
    "The task's version as you last saw it (task.version in the latest result). Claims, start, complete, fail and release raise it; heartbeats and side effects keep it.",
  queue: 'A queue\'s name (default "default").',
  leaseSeconds: `How long the lease lasts unless renewed, ${LIMITS.leaseSeconds.min}..${LIMITS.leaseSeconds.max} seconds (default: the queue's lease).`,
  start: "true: claim and start in one step.",
  skipNeedsCheck: "true: never hand out needs_check tasks (if you will not confirm checks).",
  confirmCheck: "true: you checked whether the earlier attempt's side effect happened, and you take the task on knowing that.",
  progress: "How far you are: any JSON, shown on the board.",
  result: "What you did: any JSON, kept with the task.",
  handoff:
    `A note for whoever takes the task next: summary (what you did, 1..${limitText(LIMITS.handoffSummary)} characters), next (what remains to do), artifacts (up to ${LIMITS.artifacts} links or paths to what you made).`,
  reason: `Why this attempt failed, for the next attempt and for supervisors (1..${limitText(LIMITS.reason)} characters).`,
  title: `A short title (1..${LIMITS.title} characters).`,
  priority: `Higher is claimed first, ${LIMITS.priority.min}..${LIMITS.priority.max} (default 0).`,
  payload: "A JSON object of details for whoever works the task.",
  dependsOn: `Ids of tasks that must be done before this one can be claimed (up to ${LIMITS.dependencies}).`,
  notBefore: 'Not claimable before this time (ISO 8601, e.g. "2026-12-01T14:30:00Z").',
  idempotencyKey: `A key of yours (1..${LIMITS.idempotencyKey} characters, unique per queue): repeating the create with it returns the same task instead of a second one.`,
  body: `The comment, for people and agents reading the task (1..${limitText(LIMITS.comment)} characters).`,
  limit: `Page size, 1..${LIMITS.batch}.`,
  cursor: "nextCursor from the previous page.",
  after: "nextCursor from the previous page.",
};

/**
 * Inlines `$ref`s (only the "any JSON" definition remains after the override, and it
 * refers to nothing). Output schemas stay open — the contract grows by adding fields —
 * and say `format: date-time` without zod's long pattern for it.
 */
function tidy(node: unknown, definitions: Record<string, unknown>, io: "input" | "output"): unknown {
  if (Array.isArray(node)) return node.map((item) => tidy(item, definitions, io));
  if (!node || typeof node !== "object") return node;
  const record = { ...(node as Record<string, unknown>) };
  const ref = typeof record.$ref === "string" ? /^#\/definitions\/(.+)$/.exec(record.$ref)?.[1] : undefined;
  if (ref !== undefined && ref in definitions) return tidy(definitions[ref], {}, io);
  if (io === "output") {
    if (record.additionalProperties === false) delete record.additionalProperties;
    if (record.format === "date-time") delete record.pattern;
  }
  for (const [key, value] of Object.entries(record)) record[key] = tidy(value, definitions, io);
  // `type: [a, b]` as anyOf branches of one type each: what clients with a one-type dialect
  // (the inspector's portability check names Gemini's) can read.
  if (Array.isArray(record.type) && Object.keys(record).every((key) => key === "type" || key === "description")) {
    const { type, ...rest } = record;
    return { anyOf: (type as string[]).map((t) => ({ type: t })), ...rest };
  }
  return record;
}
