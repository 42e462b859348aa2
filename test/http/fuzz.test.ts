import fc from "fast-check";
import type { z } from "zod";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { endpoints, type Endpoint } from "@/lib/http/endpoints";
import { expectErrorShape, expectEvent, expectTask, expectTaskResponse, httpFixture, STATUS_OF_CODE, type HttpFixture } from "./helpers";

// Random and malformed bodies to every POST route of the agent API, with a valid agent
// token: never a 5xx, every refusal in the one error shape with a known code and the
// status docs/contract.md#errors gives that code, and a refused request writes nothing — no task changes
// and no event, except the one claim_rejected a lost targeted claim logs by design.

const RUNS_PER_ROUTE = 200;
const FIXED_QUEUE = "fuzz-fixed";

let f: HttpFixture;
let fuzzer: string;
/** Done (completed by another agent): every owner call is refused. */
let doneId: string;
/** Started by another agent, lease valid for an hour: every owner call is refused. */
let heldId: string;

beforeAll(async () => {
  f = await httpFixture({ RATE_LIMIT_PER_SECOND: "100000", RATE_LIMIT_BURST: "100000" });
  fuzzer = await f.token("fuzzer");
  const holder = await f.token("holder");
  await f.queueSettings(FIXED_QUEUE, { leaseSeconds: 3600 });
  const make = async () =>
    expectTaskResponse(await f.api.post("/tasks", holder, { title: "fixed", queue: FIXED_QUEUE }), 201).id;
  doneId = await make();
  heldId = await make();
  for (const id of [doneId, heldId]) {
    expectTaskResponse(await f.api.post(`/tasks/${id}/claim`, holder, { version: 1 }));
    expectTaskResponse(await f.api.post(`/tasks/${id}/start`, holder, { version: 2 }));
  }
  expectTaskResponse(await f.api.post(`/tasks/${doneId}/complete`, holder, { version: 3 }));
});
afterAll(async () => {
  await f?.close();
});

// ---------------------------------------------------------------------------------------
// Bodies

const FIELDS = [
  "title", "description", "queue", "priority", "payload", "leaseSeconds", "start", "limit",
  "version", "confirmCheck", "progress", "result", "reason", "taskId", "id", "owner", "status", "decision", "digest", "note",
];
const encoder = new TextEncoder();
const bytes = (...parts: (string | readonly number[])[]): Uint8Array<ArrayBuffer> =>
  Uint8Array.from(parts.flatMap((part) => (typeof part === "string" ? [...encoder.encode(part)] : part)));

const nastyString = fc.constantFrom(
  "\u0000", "a\u0000b", "\ud800", "x\udfffy", "\ud83d", "", " ", "💥", "\u202e", "null", "{}", "default",
  "x".repeat(2001), "x".repeat(70_000), "DEFAULT", "a b", "../../etc", "%00",
);
const str = fc.oneof(fc.string({ maxLength: 20 }), fc.string({ unit: "binary", maxLength: 30 }), nastyString);
const num = fc.oneof(
  fc.integer(),
  fc.integer({ min: -3, max: 6 }),
  fc.double(),
  fc.constantFrom(-1, -0, 0.5, 4, 5, 100, 101, 3600, 3601, 2 ** 31 - 1, 2 ** 31, 2 ** 53, 2 ** 53 + 2, 1e308, -1e308, Number.MIN_VALUE),
);
const leaf = fc.oneof(str, num, fc.boolean(), fc.constant(null));
const key = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...FIELDS) },
  { weight: 1, arbitrary: fc.constantFrom("__proto__", "constructor", "prototype", "toString", "", "version ") },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 10 }) },
);
const value = fc.oneof(
  { weight: 4, arbitrary: leaf },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(leaf, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(key, leaf, { maxKeys: 3 }) },
);
/** Objects of the routes' own field names (and others), with values of any type. */
const objectBody = fc.dictionary(key, value, { maxKeys: 6 });
/** Per field: a right value most of the time, anything else otherwise. */
const fieldValue: Record<string, fc.Arbitrary<unknown>> = {
  version: fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: 5 }) }, { weight: 1, arbitrary: num }),
  title: fc.oneof({ weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 20 }) }, { weight: 1, arbitrary: str }),
  reason: fc.oneof({ weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 20 }) }, { weight: 1, arbitrary: str }),
  description: fc.oneof({ weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 20 }) }, { weight: 1, arbitrary: str }),
  queue: fc.oneof({ weight: 3, arbitrary: fc.constantFrom("default", "fuzz") }, { weight: 1, arbitrary: str }),
  priority: fc.oneof({ weight: 3, arbitrary: fc.integer({ min: -1000, max: 1000 }) }, { weight: 1, arbitrary: num }),
  leaseSeconds: fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 5, max: 3600 }) }, { weight: 1, arbitrary: num }),
  limit: fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: 100 }) }, { weight: 1, arbitrary: num }),
  start: fc.oneof({ weight: 3, arbitrary: fc.boolean() }, { weight: 1, arbitrary: leaf }),
  confirmCheck: fc.oneof({ weight: 3, arbitrary: fc.boolean() }, { weight: 1, arbitrary: leaf }),
  payload: fc.oneof({ weight: 3, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }) }, { weight: 1, arbitrary: value }),
  progress: value,
  result: value,
  body: fc.oneof({ weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 20 }) }, { weight: 1, arbitrary: str }),
};
/** Bodies of the route's own fields, mostly right, so the engine behind validation is reached too. */
function plausibleBody(endpoint: Endpoint): fc.Arbitrary<Record<string, unknown>> {
  // A DELETE of a path alone (a webhook, a schedule) has no body: fuzz it with strangers' fields.
  const fields = endpoint.body ? Object.keys((endpoint.body as z.ZodObject).shape) : [];
  const model = Object.fromEntries(fields.map((field) => [field, fieldValue[field] ?? value]));
  return fc.record(model, { requiredKeys: [] });
}

/** `depth` levels of arrays or objects, as text (JSON.stringify would recurse as deep). */
const nested = fc
  .tuple(fc.constantFrom("array", "object"), fc.integer({ min: 30, max: 20_000 }))
  .map(([kind, depth]) => (kind === "array" ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth)));
/** Deep nesting where each route takes a JSON value (and where none is allowed). */
const deepBody = fc
  .tuple(
    fc.constantFrom(
      (n: string) => `{"title":"deep","payload":{"x":${n}}}`,
      (n: string) => `{"version":3,"progress":${n}}`,
      (n: string) => `{"version":3,"result":${n}}`,
      (n: string) => `{"version":3,"reason":${n}}`,
      (n: string) => `{"queue":${n},"limit":1}`,
      (n: string) => n,
    ),
    nested,
  )
  .map(([wrap, text]) => bytes(wrap(text)));

const rawTexts = fc.constantFrom(
  '{"version":1e400}', '{"version":-0}', '{"version":1.0}', '{"version":12345678901234567890}', '{"limit":1E2}',
  '{"version":3}garbage', '\ufeff{"version":3}', '{"version":3,"version":"3"}', '{"version":3,}', "{'version':3}",
  "null", "true", "0", '"a string"', "[]", "[{}]", "{", "}", '{"a":}', "\u0000", " ", "\n\t", "NaN", "undefined",
  '{"title":"\\u0000"}', '{"title":"\\ud800"}', '{"reason":"\\udc00x","version":3}', '{"description":"ok\\u0000","version":3}',
  '{"__proto__":{"version":3}}', '{"constructor":{"prototype":{}}}',
);
const invalidUtf8 = fc
  .tuple(fc.constantFrom("title", "reason", "description", "queue", "zz"), fc.constantFrom([0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc0, 0xaf], [0xfe, 0xff]))
  .map(([field, bad]) => bytes(`{"version":3,"${field}":"ok`, bad, `"}`));

const anyBody = (endpoint: Endpoint): fc.Arbitrary<Uint8Array<ArrayBuffer>> => fc.oneof(
  { weight: 4, arbitrary: objectBody.map((o) => bytes(JSON.stringify(o))) },
  { weight: 6, arbitrary: plausibleBody(endpoint).map((o) => bytes(JSON.stringify(o))) },
  { weight: 2, arbitrary: fc.jsonValue().map((v) => bytes(JSON.stringify(v))) },
  { weight: 1, arbitrary: fc.array(value, { maxLength: 5 }).map((v) => bytes(JSON.stringify(v))) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((raw) => bytes([...raw])) },
  { weight: 1, arbitrary: invalidUtf8 },
  { weight: 1, arbitrary: deepBody },
  { weight: 1, arbitrary: rawTexts.map((t) => bytes(t)) },
  { weight: 1, arbitrary: fc.constant(bytes()) },
);
/** The bytes, printed (in counterexamples) as text cut to a readable length. */
const body = (endpoint: Endpoint) => anyBody(endpoint).map((raw) => ({
  raw,
  [fc.toStringMethod]() {
    const text = Buffer.from(raw).toString("latin1");
    return JSON.stringify(text.length > 160 ? `${text.slice(0, 80)}…(${raw.length} bytes)…${text.slice(-40)}` : text);
  },
}));
const contentType = fc.constantFrom("application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", null);

// ---------------------------------------------------------------------------------------

interface Snapshot {
  lastEventId: string;
  tasks: string;
  /** Events written after the id given to snapshot(). */
  written: { type: string; task: string | null }[];
}

/** One round trip: the newest event id, a digest of every task row, and the events after `since`. */
async function snapshot(since: string | null = null): Promise<Snapshot> {
  const [row] = await f.database.client<Snapshot[]>`
    SELECT (SELECT coalesce(max(id), 0)::text FROM task_events) AS "lastEventId",
           (SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY id), '')) FROM tasks t) AS tasks,
           (SELECT coalesce(json_agg(json_build_object('type', type, 'task', task_id::text) ORDER BY id), '[]')
              FROM task_events WHERE ${since}::bigint IS NOT NULL AND id > ${since}::bigint) AS written`;
  return row!;
}

/** Every endpoint that takes a body: POST, and PATCH /tasks/{id} (the edit). */
const postRoutes = Object.values(endpoints as Record<string, Endpoint>).filter((e) => e.method !== "GET");

describe.each(postRoutes.map((e) => [`${e.method} ${e.path}`, e] as const))("fuzz %s", (_name, endpoint) => {
  test(`${RUNS_PER_ROUTE} random and malformed bodies: never a 5xx; refusals in the error shape write nothing`, { timeout: 180_000 }, async () => {
    const tally = { success: 0, refused: 0, codes: new Map<string, number>() };
    const ids = endpoint.path.includes("{id}")
      ? fc.oneof({ weight: 8, arbitrary: fc.constantFrom(doneId, heldId) }, { weight: 1, arbitrary: fc.constantFrom("abc", "0", "-1", "1.5", "99999999999999999999", "987654321", "0012") })
      : fc.constant("");

    await fc.assert(
      fc.asyncProperty(ids, body(endpoint), contentType, async (id, { raw }, type) => {
        const path = endpoint.path.replace("{id}", encodeURIComponent(id));
        const before = await snapshot();
        const res = await f.api.request(endpoint.method, path, {
          token: fuzzer, raw, headers: type ? { "content-type": type } : {},
        });
        expect(res.status, res.text).toBeLessThan(500);
        if (res.status >= 200 && res.status < 300) {
          tally.success++;
          // What the registry says the endpoint answers on success (a waiting claim's 204 among them).
          const allowed = [endpoint.success.status, ...(endpoint.alsoAnswers ?? []).map((a) => a.status)];
          expect(allowed).toContain(res.status);
          if (res.status === 204) expect(res.text).toBe("");
          else if ("tasks" in (res.body as object)) (res.body as { tasks: unknown[] }).tasks.forEach(expectTask);
          else if ("event" in (res.body as object)) expectEvent((res.body as { event: unknown }).event);
          else if ("claimToken" in (res.body as object)) expect((res.body as { claimToken: string }).claimToken).toMatch(/^cbc_/);
          else expectTaskResponse(res, res.status);
          return;
        }
        tally.refused++;
        const error = expectErrorShape(res);
        tally.codes.set(error.code, (tally.codes.get(error.code) ?? 0) + 1);
        expect(res.status, error.code).toBe(STATUS_OF_CODE[error.code]);
        const after = await snapshot(before.lastEventId);
        expect(after.tasks, "a refused request changed a task").toBe(before.tasks);
        const loggedLoss = endpoint.operationId === "claimTask" && res.status === 409 && id === heldId;
        expect(after.written, `${res.status} ${error.code} wrote events`).toEqual(loggedLoss ? [{ type: "claim_rejected", task: heldId }] : []);
      }),
      { numRuns: RUNS_PER_ROUTE },
    );
    console.log(`[fuzz] ${endpoint.operationId}: ${tally.success} accepted, ${tally.refused} refused ${JSON.stringify(Object.fromEntries(tally.codes))}`);
    expect(tally.refused).toBeGreaterThan(RUNS_PER_ROUTE / 2);
  });
});
