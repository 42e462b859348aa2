import fc from "fast-check";
import { afterAll, beforeAll, expect, test } from "vitest";
import { expectErrorShape, expectTaskResponse, type HttpResult } from "@/test/http/helpers";
import { tableCursors } from "@/test/realtime/helpers";
import { openEventStream } from "@/test/sse";
import { attackFixture, type AttackFixture } from "./helpers";
import { makeQueue } from "@/test/queues";

// Resume cursors a client made up: malformed ones are a 400 in the error shape; any
// well-formed one — forged, from another stream, or ahead of the feed — gets exactly the
// events after it that the caller may see (its ?queue= only), then the live ones. Never a
// 5xx, never another queue's events, never a stream that silently stays quiet.

let f: AttackFixture;
let token: string;

beforeAll(async () => {
  f = await attackFixture();
  token = await f.token("cursors", "agent");
  for (const queue of ["a", "b"]) await makeQueue(f.database.db, queue);
  for (const queue of ["a", "b", "a", "b", "a"]) {
    const task = expectTaskResponse(await f.api.post("/tasks", token, { title: `t ${queue}`, queue }), 201);
    expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, token, { version: 1 }));
  }
});
afterAll(async () => {
  f?.expectCleanLogs();
  await f?.close();
});

const MALFORMED = [
  "", "abc", "1", "1:", ":1", "-1:2", "1:-2", "1.5:2", "1:2:3", "0x10:1", "1:2\u0000", "\u0000", "1 :2", "１:２",
  "99999999999999999999:1", "1:99999999999999999999", "9223372036854775808:1", "x".repeat(5000), "%31:%32",
];

test("malformed cursors, as Last-Event-ID or ?after=: 400 in the error shape", async () => {
  for (const cursor of MALFORMED) {
    const viaQuery = await f.api.get(`/events?after=${encodeURIComponent(cursor)}`, token);
    if (cursor.trim() === "") expect(viaQuery.status, JSON.stringify(cursor)).toBe(400);
    else {
      expect(viaQuery.status, JSON.stringify(cursor)).toBe(400);
      expect(expectErrorShape(viaQuery).code).toBe("invalid_request");
    }
    if (/[\u0000\uff00-\uffff]/.test(cursor)) continue; // not a legal header value: fetch refuses to send it
    const viaHeader = await f.api.get("/events", token, { "last-event-id": cursor });
    expect(viaHeader.status, `Last-Event-ID ${JSON.stringify(cursor)}`).toBe(400);
    expect(expectErrorShape(viaHeader).code).toBe("invalid_request");
  }
});

/** The 400 for `cursor`, or null when the stream opens (it is then closed at once). */
async function openOrRefusal(cursor: string): Promise<HttpResult | null> {
  const abort = new AbortController();
  const response = await fetch(`${f.api.base}/events?after=${cursor}`, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
  if (response.status === 200) {
    abort.abort();
    return null;
  }
  const text = await response.text();
  expect(response.status, text).toBe(400);
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
}

/** Cursors the server could have handed out are at or behind this: (horizon - 1, any id). */
async function aheadOfFeed(cursor: string): Promise<boolean> {
  const [row] = await f.database.client<{ xmin: string }[]>`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`;
  return BigInt(cursor.split(":")[0]!) >= BigInt(row!.xmin);
}

/** Opens ?queue=a from `cursor`, writes a marker task, reads up to it: what came before it. */
async function replay(cursor: string) {
  const expected = await tableCursors(f.database, { after: cursor, queue: "a" });
  const stream = await openEventStream(`${f.api.base}/events?queue=a`, { token, lastEventId: cursor });
  try {
    const marker = expectTaskResponse(await f.api.post("/tasks", token, { title: "marker", queue: "a" }), 201);
    await stream.until((messages) => messages.some((m) => JSON.parse(m.data).taskId === marker.id), 20_000);
    const events = stream.events();
    const before = events.slice(0, events.findIndex((e) => e.taskId === marker.id));
    return { expected, got: stream.messages.slice(0, before.length).map((m) => m.id), queues: new Set(events.map((e) => e.queue)) };
  } finally {
    stream.close();
  }
}

test("forged well-formed cursors replay exactly what follows them in the caller's queue, then live events", { timeout: 120_000 }, async () => {
  const [first] = await tableCursors(f.database, { queue: "b" });
  const fixed = ["0:0", "1:1", first!, "1:999999"];
  let runs = 0;
  let ahead = 0;
  const check = async (cursor: string) => {
    const probe = await openOrRefusal(cursor);
    if (probe) {
      expect(expectErrorShape(probe).code).toBe("invalid_request");
      expect(await aheadOfFeed(cursor), `${cursor} refused but not ahead of the feed`).toBe(true);
      ahead++;
      return;
    }
    const { expected, got, queues } = await replay(cursor);
    expect(got, cursor).toEqual(expected);
    expect([...queues], "only queue a").toEqual(["a"]);
    runs++;
  };
  for (const cursor of fixed) await check(cursor);
  expect(runs).toBe(fixed.length);
  await fc.assert(
    fc.asyncProperty(fc.tuple(fc.bigInt({ min: 0n, max: 2000n }), fc.bigInt({ min: 0n, max: 100n })).map(([t, e]) => `${t}:${e}`), check),
    { numRuns: 12 },
  );
  console.log(`[cursors] ${MALFORMED.length} malformed refused; of ${fixed.length + 12} forged cursors ${runs} replayed exactly their queue's events, ${ahead} ahead of the feed refused`);
});

// Found by this suite: such a cursor used to open a stream that then stayed silent for
// good — every live event sorts before it. app/api/v1/events/route.ts now refuses it.
test("a cursor ahead of the feed (never handed out) is a 400, not a stream that never speaks", { timeout: 120_000 }, async () => {
  for (const cursor of ["9223372036854775807:9223372036854775807", "9223372036854775807:0", "999999999:1"]) {
    const probe = await openOrRefusal(cursor);
    expect(probe, cursor).not.toBeNull();
    expect(expectErrorShape(probe!).code).toBe("invalid_request");
  }
  // The position a page is rendered with (currentPosition) is never "ahead".
  const [row] = await f.database.client<{ xmin: string }[]>`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`;
  expect(await openOrRefusal(`${BigInt(row!.xmin) - 1n}:9223372036854775807`)).toBeNull();
});

test("list cursors: malformed → 400; forged or far ahead → a page of real tasks after it, never a 5xx", async () => {
  for (const cursor of ["abc", "-1", "0", "1.5", "99999999999999999999", "1\u0000", "%00"]) {
    const res = await f.api.get(`/tasks?cursor=${encodeURIComponent(cursor)}`, token);
    expect(res.status, cursor).toBe(400);
    expectErrorShape(res);
    const events = await f.api.get(`/tasks/1/events?after=${encodeURIComponent(cursor)}`, token);
    expect(events.status, cursor).toBe(400);
  }
  // A sort=updated position (`<id>.<micros>`) is a cursor of that sort only; forged, it is a page too.
  expect((await f.api.get(`/tasks?sort=updated&cursor=1.5`, token)).status).toBe(200);
  for (const cursor of ["1", "3", "9223372036854775807", "999999999"]) {
    const res = await f.api.get(`/tasks?cursor=${cursor}`, token);
    expect(res.status, cursor).toBe(200);
    const ids = (res.body as { tasks: { id: string }[] }).tasks.map((t) => BigInt(t.id));
    expect(ids.every((id) => id > BigInt(cursor)), cursor).toBe(true);
    const events = await f.api.get(`/tasks/1/events?after=${cursor}`, token);
    expect(events.status, cursor).toBe(200);
  }
});
