import { isDeepStrictEqual } from "node:util";
import { effectId, questionId, queueName, taskId } from "@/lib/tasks/model";
import { z } from "zod";
import type { TokenRole } from "@/db/schema";
import { MAX_BODY_BYTES } from "./body";
import { rolesOf } from "./access";
import { endpoints, errorObject, INSTANCE_HEADER, type Endpoint } from "./endpoints";
import { STATUS_OF, type ApiErrorCode } from "./errors";

// The OpenAPI 3.1 document, generated from the endpoint registry and its zod schemas only:
// a path appears here because an entry in `endpoints` exists, never because it is listed.

export type JsonSchema = { [keyword: string]: unknown };

export interface OpenApiParameter {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
  content?: Record<string, { schema: JsonSchema }>;
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  tags: string[];
  security: Record<string, string[]>[];
  /** Token roles allowed, or "public" (no token). */
  "x-roles": TokenRole[] | "public";
  parameters?: OpenApiParameter[];
  requestBody?: { required: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, OpenApiResponse>;
}

type SecurityScheme =
  | { type: "http"; scheme: "bearer"; bearerFormat: string; description: string }
  | { type: "apiKey"; in: "cookie"; name: string; description: string };

export interface ErrorCodeRow {
  status: number;
  code: ApiErrorCode | "internal";
  when: string;
}

export interface OpenApiDocument {
  openapi: "3.1.0";
  info: { title: string; version: string; description: string; license: { name: string } };
  servers: { url: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: {
    securitySchemes: Record<string, SecurityScheme>;
    schemas: Record<string, JsonSchema>;
  };
  "x-error-codes": ErrorCodeRow[];
}

/** The error table of docs/contract.md#errors. Typed by the code union, so a new code cannot go undocumented. */
const WHEN: Record<ApiErrorCode | "internal", string> = {
  invalid_request: "Body or query fails validation (the message names the field); malformed JSON; a create or claim naming a queue that does not exist or is archived (field: queue)",
  unauthorized: "No, unknown or revoked token",
  claim_ended: "A claim token (cbc_) whose attempt has ended (complete, fail, release, force-release, a lapse taken back to the queue, a new holding): it is dead",
  wrong_task: "A claim token used on another task, or on a route that is not one of its task's owner calls or reads",
  op_not_allowed: "A claim token used for an op it was not given (its `ops`)",
  forbidden: "The token's role may not do this, or the queue's `claimants` rule excludes the caller (the message names it)",
  not_found: "No such task",
  method_not_allowed: "The path does not answer this method; `Allow` lists the ones it does",
  already_claimed: "Claim lost: the message names the current owner",
  version_conflict: "The expected version is stale; `task` is the current state",
  not_owner: "The caller does not own the task",
  lease_expired: "start or renew after the lease lapsed",
  invalid_transition: "The state does not allow it (e.g. complete a queued task)",
  check_required: 'start on a needs_check task without "confirmCheck": true',
  attempt_limit: "A heartbeat would carry the lease past claimed at + the queue's maxAttemptSeconds: the lease is not extended, and the attempt's lapse counts as a failure",
  no_progress: "A renewal at the queue's maxRenewalsWithoutProgress (the same or no progress, no checkpoint, effect or question since): the lease is not extended and the attempt fails as a strike (reason no_progress); `task` set",
  unread_human_input: "complete, or a new effect intent, while others' comments on the task are unacknowledged (the message names them; `task.unread` lists them): read them, then POST /tasks/{id}/ack",
  busy: "A targeted claim met a row held by another in-flight transaction; Retry-After set",
  not_ready: "A targeted claim of a blocked task or one whose notBefore is in the future; the message says why",
  dependency_cycle: "The dependencies would close a cycle in the work graph",
  idempotency_conflict: "The idempotencyKey was used in this queue by a create with other fields",
  queue_paused: "A targeted claim in a paused queue",
  self_review: "A review by the task's submitter or by an actor who held an attempt of it, or an answer by the question's asker (maker–checker: decided in the engine, the same on every surface)",
  submission_changed: "A review naming a digest that is not the submission's: the task changed since the reviewer read it; `task` set",
  effects_unresolved: "A completion while an effect of the task is unknown (the message names them; `task` set): resolve each first",
  payload_too_large: `Body over ${MAX_BODY_BYTES / 1024} KiB`,
  rate_limited: "Per-token rate limit, or too many failed authentications from one address; Retry-After set",
  unavailable: "The database is unreachable; Retry-After set",
  internal: "A bug on the server; the message is generic and no stack trace leaves",
};

export const errorCodes: ErrorCodeRow[] = (Object.keys(WHEN) as (keyof typeof WHEN)[])
  .map((code) => ({ status: code === "internal" ? 500 : STATUS_OF[code], code, when: WHEN[code] }))
  .sort((a, b) => a.status - b.status);

/** What every authenticated endpoint may answer besides its own errors. */
const AUTHENTICATED_ERRORS = [401, 403, 429, 503];
const PATH_PARAMETERS: Record<string, { schema: z.ZodType; description: string }> = {
  id: { schema: taskId, description: "The task's id (a positive whole number as a string)" },
  dep: { schema: taskId, description: "The id of the dependency to remove (a task the task depends on)" },
  name: { schema: queueName, description: "The queue's name (1 to 64 characters of a-z, 0-9, '.', '_' or '-')" },
  effectId: { schema: effectId, description: "The effect's id (a positive whole number as a string), from the task's effect ledger" },
  questionId: { schema: questionId, description: "The question's id (a positive whole number as a string), from the ask's answer" },
};
const TAGS: Record<string, string> = {
  Tasks: "Tasks, their history, and the owner calls that move them through their life",
  Claims: "Claiming the next task(s) of a queue",
  Events: "The live feed of every change (Server-Sent Events), resumable without gaps",
  Queues: "Queues as a supervisor keeps them: made on purpose, settings, pause, archive (supervisor tokens)",
  Service: "No token needed",
};

const DEF_REF = /^#\/\$defs\/(.+)$/;
const ANONYMOUS_DEF = /^__schema\d+$/;
const refTo = (name: string) => `#/components/schemas/${name}`;
const toJson = (schema: z.ZodType, io: "input" | "output"): JsonSchema =>
  JSON.parse(JSON.stringify(z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" })));

/**
 * Turns zod schemas into schemas that live inside one OpenAPI document: each conversion's
 * `$defs` (named by `.meta({ id })`, or anonymous for recursion, as in z.json()) move to
 * components.schemas, because a `#/$defs/...` ref inside a document resolves against the
 * document's root, not the schema's.
 */
class SchemaCollector {
  readonly components: Record<string, JsonSchema> = {};
  private readonly jsonValueKey = JSON.stringify(this.withoutSchemaKeyword(toJson(z.json(), "output")));

  convert(schema: z.ZodType, io: "input" | "output", where: string): JsonSchema {
    const { $defs = {}, ...root } = this.withoutSchemaKeyword(toJson(schema, io)) as JsonSchema & { $defs?: Record<string, JsonSchema> };
    const names = new Map(Object.entries($defs).map(([name, def]) => [name, this.componentName(name, def, where)]));
    const rewrite = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rewrite);
      if (node === null || typeof node !== "object") return node;
      const out = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, key === "$ref" ? value : rewrite(value)]));
      if (out.$ref === undefined) return out;
      const target = typeof out.$ref === "string" ? DEF_REF.exec(out.$ref)?.[1] : undefined;
      if (target === undefined) throw new Error(`${where}: a $ref outside $defs (${String(out.$ref)}) cannot move into a document`);
      const name = names.get(target);
      if (!name) throw new Error(`${where}: dangling $ref ${String(out.$ref)}`);
      const { $ref: _ref, ...siblings } = out;
      // zod repeats a refined recursive schema's body beside its $ref; the ref alone says it.
      const redundant = Object.keys(siblings).length === 0 || isDeepStrictEqual(siblings, rewrite($defs[target]));
      return redundant ? { $ref: refTo(name) } : { ...siblings, $ref: refTo(name) };
    };
    for (const [name, def] of Object.entries($defs)) {
      const component = names.get(name)!;
      const schema = rewrite(def) as JsonSchema;
      this.add(component, component === "JsonValue" ? arraysOfAnything(schema) : schema, where);
    }
    return rewrite(root) as JsonSchema;
  }

  /** A $ref to a named schema, adding it to the components. */
  named(schema: z.ZodType, io: "input" | "output", where: string): JsonSchema {
    const converted = this.convert(schema, io, where);
    if (typeof converted.$ref !== "string") throw new Error(`${where}: give the schema a .meta({ id })`);
    return converted;
  }

  private componentName(name: string, def: JsonSchema, where: string): string {
    if (!ANONYMOUS_DEF.test(name)) return name;
    const key = JSON.stringify(def).replaceAll(`"#/$defs/${name}"`, '"#"');
    if (key === this.jsonValueKey) return "JsonValue";
    throw new Error(`${where}: an unnamed recursive schema; give it a .meta({ id })`);
  }

  private add(name: string, schema: JsonSchema, where: string) {
    const existing = this.components[name];
    if (existing && !isDeepStrictEqual(existing, schema)) throw new Error(`${where}: two different schemas named ${name}`);
    this.components[name] = schema;
  }

  private withoutSchemaKeyword(schema: JsonSchema): JsonSchema {
    const { $schema: _schema, ...rest } = schema;
    return rest;
  }
}

/**
 * JsonValue's array branch as "an array of anything": the same set of documents (whatever
 * a JSON array holds is a JSON value), but no array of itself, which stock generators turn
 * into a type TypeScript refuses as circular (TS2502; openapi-typescript #1603). Objects
 * still recurse, so generated types stay precise where payloads have shape.
 */
function arraysOfAnything(schema: JsonSchema): JsonSchema {
  const branches = schema.anyOf as JsonSchema[] | undefined;
  if (!branches) throw new Error("JsonValue: expected anyOf branches");
  return { ...schema, anyOf: branches.map((branch) => (branch.type === "array" ? { type: "array", items: {} } : branch)) };
}

function retryAfter(description: string) {
  return { "Retry-After": { description, schema: { type: "integer", minimum: 1 } } };
}

function errorResponse(status: number, errorRef: JsonSchema): OpenApiResponse {
  const codes = errorCodes.filter((row) => row.status === status).map((row) => `\`${row.code}\``);
  const headers =
    status === 429 || status === 503
      ? retryAfter("Seconds to wait before retrying")
      : status === 409
        ? retryAfter("Seconds to wait before retrying; set with `busy` only")
        : status === 401
          ? { "WWW-Authenticate": { description: 'Bearer realm="claimboard"', schema: { type: "string" } } }
          : undefined;
  return {
    description: `Error: ${codes.join(", ")}`,
    ...(headers ? { headers } : {}),
    content: { "application/json": { schema: errorRef } },
  };
}

function answer(description: string, schema: JsonSchema | undefined, contentType = "application/json"): OpenApiResponse {
  return schema ? { description, content: { [contentType]: { schema } } } : { description };
}

/** A Server-Sent Events stream: text, resumable with the standard Last-Event-ID header. */
const EVENT_STREAM = "text/event-stream";
const LAST_EVENT_ID: OpenApiParameter = {
  name: "Last-Event-ID",
  in: "header",
  required: false,
  description: "The `id:` of the last event received; the stream resumes after it (wins over a cursor in the query)",
  schema: { type: "string" },
};

/** Which process of a token's agent calls: recorded in the claim, heartbeat and completion events. */
const INSTANCE: OpenApiParameter = {
  name: INSTANCE_HEADER,
  in: "header",
  required: false,
  description: "Which process of the token's agent calls (e.g. host:pid; printable ASCII, 1..200): recorded in the events the call writes, so a crashed process is told apart from its replacement on the same token",
  schema: { type: "string", minLength: 1, maxLength: 200 },
};

function operation(endpoint: Endpoint, schemas: SchemaCollector, errorRef: JsonSchema): OpenApiOperation {
  const where = endpoint.operationId;
  const roles = rolesOf(endpoint);
  const isPublic = roles === "public";
  const parameters: OpenApiParameter[] = [...endpoint.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => {
    const param = PATH_PARAMETERS[name!];
    if (!param) throw new Error(`${where}: no schema for the path parameter {${name}}`);
    return { name: name!, in: "path", required: true, description: param.description, schema: schemas.convert(param.schema, "input", where) };
  });
  if (endpoint.query) {
    const query = schemas.convert(endpoint.query, "input", where);
    const required = new Set((query.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, JsonSchema>)) {
      parameters.push({ name, in: "query", required: required.has(name), schema });
    }
  }
  const responses: Record<string, OpenApiResponse> = {};
  const { contentType = "application/json" } = endpoint.success;
  if (contentType === EVENT_STREAM) parameters.push(LAST_EVENT_ID);
  if (!isPublic && endpoint.method === "POST") parameters.push(INSTANCE);
  responses[endpoint.success.status] = answer(
    endpoint.success.description,
    endpoint.success.schema ? schemas.convert(endpoint.success.schema, "output", where) : contentType !== "application/json" ? { type: "string" } : undefined,
    contentType,
  );
  for (const { status, description, schema } of endpoint.alsoAnswers ?? []) {
    responses[status] = answer(description, schema ? schemas.convert(schema, "output", where) : undefined);
  }
  const errorStatuses = new Set([...endpoint.errors, ...(isPublic ? [] : AUTHENTICATED_ERRORS)]);
  for (const status of [...errorStatuses].sort((a, b) => a - b)) responses[status] = errorResponse(status, errorRef);

  const body = endpoint.body ? schemas.convert(endpoint.body, "input", where) : undefined;
  const segment = endpoint.path.split("/")[1] ?? "";
  return {
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    tags: [isPublic ? "Service" : segment.charAt(0).toUpperCase() + segment.slice(1)],
    security: isPublic ? [] : endpoint.session ? [{ bearerAuth: [] }, { sessionCookie: [] }] : [{ bearerAuth: [] }],
    "x-roles": roles,
    ...(parameters.length ? { parameters } : {}),
    ...(body
      ? { requestBody: { required: ((body.required as string[] | undefined) ?? []).length > 0, content: { "application/json": { schema: body } } } }
      : {}),
    responses,
  };
}

const errorTable = [
  "| status | code | when |",
  "|---|---|---|",
  ...errorCodes.map((row) => `| ${row.status} | \`${row.code}\` | ${row.when.replaceAll("|", "\\|")} |`),
].join("\n");

const DESCRIPTION = `The HTTP API that agents and scripts claim and work tasks through. It changes only by adding.

Authenticate with \`Authorization: Bearer cb_…\` (a token made by a supervisor; observer tokens may only read).
By default each token may make 100 requests/s sustained with bursts of 200, and failed authentications are limited to 10 a minute per address with bursts of 20; over a limit the answer is 429 with Retry-After. Limits are kept per server process.
Request bodies are JSON of at most ${MAX_BODY_BYTES / 1024} KiB. A retried owner call that already took effect answers 200 with the current task and writes no second event.

Every error has one shape, \`{ "error": { "code", "message", "field"?, "task"? } }\`:

${errorTable}`;

function build(): OpenApiDocument {
  const schemas = new SchemaCollector();
  const errorRef = schemas.named(errorObject, "output", "Error");
  const paths: OpenApiDocument["paths"] = {};
  for (const endpoint of Object.values(endpoints) as Endpoint[]) {
    const method = endpoint.method.toLowerCase();
    const item = (paths[endpoint.path] ??= {});
    if (item[method]) throw new Error(`${endpoint.operationId}: ${endpoint.method} ${endpoint.path} is registered twice`);
    item[method] = operation(endpoint, schemas, errorRef);
  }
  const usedTags = new Set(Object.values(paths).flatMap((item) => Object.values(item).flatMap((op) => op.tags)));
  return {
    openapi: "3.1.0",
    info: {
      title: "Claimboard agent API",
      version: "1.2",
      description: DESCRIPTION,
      // The project is not open source (package.json: private); name a licence here if that changes.
      license: { name: "Proprietary: all rights reserved (UNLICENSED)" },
    },
    servers: [{ url: "/api/v1" }],
    tags: [...usedTags].map((name) => ({ name, description: TAGS[name] ?? name })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "cb_…",
          description: "An agent token: `cb_` and 43 base64url characters (256 random bits), shown once when made.",
        },
        sessionCookie: {
          type: "apiKey",
          in: "cookie",
          name: "next-auth.session-token",
          description: "A signed-in person's browser session (`__Secure-` prefixed over HTTPS), read-only, on the endpoints that accept it",
        },
      },
      schemas: Object.fromEntries(Object.entries(schemas.components).sort(([a], [b]) => a.localeCompare(b))),
    },
    "x-error-codes": errorCodes,
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export type DeepReadonly<T> = T extends (infer I)[] ? readonly DeepReadonly<I>[] : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;

let cached: DeepReadonly<OpenApiDocument> | undefined;

/** The document, built once per process and frozen, so every call returns the same thing. */
export function buildOpenApiDocument(): DeepReadonly<OpenApiDocument> {
  return (cached ??= deepFreeze(build()));
}
