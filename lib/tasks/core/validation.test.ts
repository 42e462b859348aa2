import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Operation } from "@/lib/tasks";
import {
  cancel, claim, claimBatch, claimNext, complete, createTask, failTask, forceRelease, recordSideEffect, release,
  renew, requeue, resetBreaker, resolve, setQueueSettings, start, sweepExpiredLeases, type ActorRef,
} from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { rowCounts } from "@/test/inspect";

let f: EngineFixture;
let amal: ActorRef;
let queuedId: string;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  queuedId = (await f.task("target")).id;
});
afterAll(async () => {
  await f?.close();
});

// Operations of different input types in one table: the cases below pass deliberately bad input.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyOperation = Operation<any, unknown>;
type Case = [name: string, op: AnyOperation, input: () => unknown, field?: string];

function cyclic() {
  const value: Record<string, unknown> = { a: 1 };
  value.self = value;
  return value;
}

const cases: Case[] = [
  ["queue name empty", createTask, () => ({ title: "t", queue: "" }), "queue"],
  ["queue name of 65 characters", createTask, () => ({ title: "t", queue: "q".repeat(65) }), "queue"],
  ["queue name with uppercase", claimNext, () => ({ queue: "Default" }), "queue"],
  ["queue name with a space", claimBatch, () => ({ queue: "my queue", limit: 1 }), "queue"],
  ["queue name with a slash", setQueueSettings, () => ({ queue: "a/b" }), "queue"],
  ["version 0", claim, () => ({ taskId: queuedId, version: 0 }), "version"],
  ["version 1.5", start, () => ({ taskId: queuedId, version: 1.5 }), "version"],
  ["version as a string", renew, () => ({ taskId: queuedId, version: "1" }), "version"],
  ["priority 5000", createTask, () => ({ title: "t", priority: 5000 }), "priority"],
  ["priority -1001", createTask, () => ({ title: "t", priority: -1001 }), "priority"],
  ["leaseSeconds 4", claimNext, () => ({ leaseSeconds: 4 }), "leaseSeconds"],
  ["leaseSeconds 3601", claimNext, () => ({ leaseSeconds: 3601 }), "leaseSeconds"],
  ["queue leaseSeconds 3601", setQueueSettings, () => ({ queue: "default", leaseSeconds: 3601 }), "leaseSeconds"],
  ["limit 0", claimBatch, () => ({ limit: 0 }), "limit"],
  ["limit 101", claimBatch, () => ({ limit: 101 }), "limit"],
  ["task id 0", claim, () => ({ taskId: "0", version: 1 }), "taskId"],
  ["task id not a number", complete, () => ({ taskId: "abc", version: 1 }), "taskId"],
  ["task id past bigint", release, () => ({ taskId: "9223372036854775808", version: 1 }), "taskId"],
  ["empty title", createTask, () => ({ title: "" }), "title"],
  ["NUL in title", createTask, () => ({ title: "a\u0000b" }), "title"],
  ["title of blanks only", createTask, () => ({ title: "   " }), "title"],
  ["notBefore in the year 0", createTask, () => ({ title: "t", notBefore: "0000-01-01T00:00:00Z" }), "notBefore"],
  ["notBefore that is the year 0 in UTC", createTask, () => ({ title: "t", notBefore: "0001-01-01T00:00:00+14:00" }), "notBefore"],
  ["lone surrogate in title", createTask, () => ({ title: "broken \ud800" }), "title"],
  ["NUL in description", createTask, () => ({ title: "t", description: "x\u0000" }), "description"],
  ["lone surrogate in description", createTask, () => ({ title: "t", description: "\udc00 tail" }), "description"],
  ["NUL in a payload key", createTask, () => ({ title: "t", payload: { "k\u0000": 1 } }), "payload"],
  ["lone surrogate in a payload key", createTask, () => ({ title: "t", payload: { "\ud83d": 1 } }), "payload"],
  ["NUL in a nested payload value", createTask, () => ({ title: "t", payload: { a: [{ b: "x\u0000y" }] } }), "payload"],
  ["lone surrogate in a payload value", createTask, () => ({ title: "t", payload: { a: "\udfff" } }), "payload"],
  ["NUL in a side effect description", recordSideEffect, () => ({ taskId: queuedId, version: 1, description: "\u0000" }), "description"],
  ["lone surrogate in a fail reason", failTask, () => ({ taskId: queuedId, version: 1, reason: "\ud800" }), "reason"],
  ["NUL in heartbeat progress", renew, () => ({ taskId: queuedId, version: 1, progress: { note: "\u0000" } }), "progress"],
  ["payload not an object", createTask, () => ({ title: "t", payload: [1, 2] }), "payload"],
  ["payload with a BigInt", createTask, () => ({ title: "t", payload: { n: 1n } }), "payload"],
  ["payload with a cycle", createTask, () => ({ title: "t", payload: cyclic() }), "payload"],
  ["unknown field on create", createTask, () => ({ title: "t", owner: "me" })],
  ["unknown field on claim", claim, () => ({ taskId: queuedId, version: 1, leaseSeconds: 60 })],
  ["unknown field on claim-next", claimNext, () => ({ queue: "default", priority: 1 })],
  ["unknown field on requeue", requeue, () => ({ taskId: queuedId, version: 1, failureCount: 0 })],
  ["missing version", forceRelease, () => ({ taskId: queuedId }), "version"],
  ["missing queue", resetBreaker, () => ({}), "queue"],
  ["not an object", sweepExpiredLeases, () => "default"],
  ["null input", cancel, () => null],
];

describe("bad input is invalid_request and writes nothing", () => {
  test.each(cases)("%s", async (_name, op, input, field) => {
    const before = await rowCounts(f.db);
    const result = await f.run(op, input() as never, amal);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("invalid_request");
    if (field) {
      expect(result.error.field?.split(".")[0]).toBe(field); // dotted for nested fields, e.g. payload.n
      expect(result.error.message).toContain(field);
    }
    expect(await rowCounts(f.db)).toEqual(before);
  });
});

describe("an unknown task is not_found and writes nothing", () => {
  const ops: [string, AnyOperation, Record<string, unknown>][] = [
    ["claim", claim, {}],
    ["start", start, { confirmCheck: true }],
    ["renew", renew, {}],
    ["recordSideEffect", recordSideEffect, { description: "x" }],
    ["release", release, {}],
    ["forceRelease", forceRelease, {}],
    ["complete", complete, {}],
    ["fail", failTask, { reason: "x" }],
    ["requeue", requeue, {}],
    ["resolve", resolve, {}],
    ["cancel", cancel, {}],
  ];
  test.each(ops)("%s", async (_name, op, extra) => {
    const before = await rowCounts(f.db);
    const result = await f.run(op, { taskId: "999999", version: 1, ...extra } as never, amal);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatchObject({ code: "not_found", message: expect.stringContaining("999999") });
    expect(await rowCounts(f.db)).toEqual(before);
  });
});
