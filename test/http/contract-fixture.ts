import { afterAll, beforeAll, expect } from "vitest";
import { expectEvent, expectTaskResponse, httpFixture, type HttpFixture, type WireEvent, type WireTask } from "./helpers";

// The contract tests' one fixture (contract.test.ts: success shapes; contract-errors.test.ts: the
// error table): a production server on a fresh database, three tokens, a queue per test, and
// tasks made, claimed or started in one line. Call at the top of a file: it registers the
// file's beforeAll and afterAll, and its `the` is filled once beforeAll has run.

export function contractFixture() {
  const the = {} as { f: HttpFixture; amal: string; bilal: string; watcher: string };
  beforeAll(async () => {
    the.f = await httpFixture();
    the.amal = await the.f.token("amal");
    the.bilal = await the.f.token("bilal");
    the.watcher = await the.f.token("watcher", "observer");
  });
  afterAll(async () => {
    await the.f?.close();
  });

  let queues = 0;
  /** A queue of the test's own, made (queues exist only on purpose). */
  const newQueue = (name: string) => the.f.queue(`${name}-${++queues}`);

  async function create(queue: string, title = "A task", extra: Record<string, unknown> = {}): Promise<WireTask> {
    return expectTaskResponse(await the.f.api.post("/tasks", the.amal, { title, queue, ...extra }), 201);
  }

  /** A new task claimed by `token` at version 2. */
  async function claimedBy(token: string, queue: string): Promise<WireTask> {
    const task = await create(queue);
    return expectTaskResponse(await the.f.api.post(`/tasks/${task.id}/claim`, token, { version: 1 }));
  }

  /** A new task claimed and started by `token` at version 3. */
  async function startedBy(token: string, queue: string): Promise<WireTask> {
    const task = await claimedBy(token, queue);
    return expectTaskResponse(await the.f.api.post(`/tasks/${task.id}/start`, token, { version: 2 }));
  }

  async function current(id: string): Promise<WireTask> {
    return expectTaskResponse(await the.f.api.get(`/tasks/${id}`, the.amal));
  }

  async function events(id: string): Promise<WireEvent[]> {
    const res = await the.f.api.get(`/tasks/${id}/events?limit=100`, the.amal);
    expect(res.status, res.text).toBe(200);
    return (res.body as { events: unknown[] }).events.map(expectEvent);
  }

  return { the, newQueue, create, claimedBy, startedBy, current, events };
}
