import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { expectError, expectEvent, expectTaskResponse, httpFixture, type HttpFixture, type WireTask } from "./helpers";

// Issue 15's edits and comments over real HTTP (`next start`, PostgreSQL): PATCH
// /tasks/{id} version-fenced, POST /tasks/{id}/comments, and the bad input of each refused
// in the error shape with nothing written.

let f: HttpFixture;
let amal: string;
let bilal: string;
let boss: string;
let watcher: string;
beforeAll(async () => {
  f = await httpFixture();
  amal = await f.token("amal");
  bilal = await f.token("bilal");
  boss = await f.token("boss", "supervisor");
  watcher = await f.token("watcher", "observer");
});
afterAll(async () => {
  await f?.close();
});

const patch = (id: string, token: string, json: unknown) => f.api.request("PATCH", `/tasks/${id}`, { token, json });
const create = async (title = "Inspectoins", queue = "edits") => expectTaskResponse(await f.api.post("/tasks", amal, { title, queue: await f.queue(queue) }), 201);
const rowOf = async (id: string) => (await f.database.client`SELECT title, version, updated_at FROM tasks WHERE id = ${id}::bigint`)[0]!;

describe("PATCH /tasks/{id}", () => {
  test("the creator edits: 200 {task} at version + 1, an edited event with from and to", async () => {
    const task = await create();
    const edited = expectTaskResponse(await patch(task.id, amal, { version: 1, title: "Inspections", payload: { site: 7 } }));
    expect(edited).toMatchObject({ title: "Inspections", payload: { site: 7 }, version: 2, status: "queued" });
    const events = (await f.api.get(`/tasks/${task.id}/events`, amal)).body as { events: unknown[] };
    const last = expectEvent(events.events.at(-1));
    expect(last).toMatchObject({ type: "edited", actor: { name: "amal" } });
    expect(last.payload).toEqual({ version: 2, status: "queued", changes: { title: { from: "Inspectoins", to: "Inspections" }, payload: { from: {}, to: { site: 7 } } } });
  });

  test("a stale version: 409 version_conflict with the current task; nothing written", async () => {
    const task = await create();
    expectTaskResponse(await patch(task.id, amal, { version: 1, title: "Amal's title" }));
    const before = await rowOf(task.id);
    const events = await f.eventCount(task.id);
    const error = expectError(await patch(task.id, boss, { version: 1, title: "Boss's title" }), 409, "version_conflict");
    expect(error.task as WireTask).toMatchObject({ id: task.id, title: "Amal's title", version: 2 });
    expect(await rowOf(task.id)).toEqual(before);
    expect(await f.eventCount(task.id)).toBe(events);
  });

  test("a done task: 409 invalid_transition; someone else's task: 403 forbidden; a supervisor's token edits any", async () => {
    const task = await create();
    const claimed = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, amal, { version: 1 }));
    expect(expectError(await patch(task.id, amal, { version: claimed.version, title: "mine, held" }), 409, "invalid_transition").message).toMatch(/claimed/);
    const started = expectTaskResponse(await f.api.post(`/tasks/${task.id}/start`, amal, { version: claimed.version }));
    const done = expectTaskResponse(await f.api.post(`/tasks/${task.id}/complete`, amal, { version: started.version }));
    const events = await f.eventCount(task.id);
    expect(expectError(await patch(task.id, amal, { version: done.version, title: "too late" }), 409, "invalid_transition").message).toMatch(/done/);
    expect(expectError(await patch(task.id, boss, { version: done.version, title: "too late" }), 409, "invalid_transition").task?.status).toBe("done");

    const other = await create("Amal's own");
    expectError(await patch(other.id, bilal, { version: 1, title: "Bilal's now" }), 403, "forbidden");
    expectError(await patch(other.id, watcher, { version: 1, title: "watching" }), 403, "forbidden");
    expect(expectTaskResponse(await patch(other.id, boss, { version: 1, priority: 5 }))).toMatchObject({ priority: 5, version: 2 });
    expect(await f.eventCount(task.id)).toBe(events);
    expect((await rowOf(other.id)).title).toBe("Amal's own");
  });

  test("bad input names the field: an empty title, a payload that is not an object, an unknown field, no field at all", async () => {
    const task = await create();
    expect(expectError(await patch(task.id, amal, { version: 1, title: "" }), 400, "invalid_request").field).toBe("title");
    expect(expectError(await patch(task.id, amal, { version: 1, payload: [1, 2] }), 400, "invalid_request").field).toBe("payload");
    expect(expectError(await patch(task.id, amal, { version: 1, status: "done" }), 400, "invalid_request").message).toContain("status");
    expect(expectError(await patch(task.id, amal, { version: 1 }), 400, "invalid_request").message).toContain("at least one of title");
    expect(expectError(await patch(task.id, amal, { title: "x" }), 400, "invalid_request").field).toBe("version");
    expectError(await patch("99999999", amal, { version: 1, title: "x" }), 404, "not_found");
    expect(await rowOf(task.id)).toMatchObject({ title: "Inspectoins", version: 1 });
  });
});

describe("POST /tasks/{id}/comments", () => {
  test("201 {event}: a commented event, the task's version untouched", async () => {
    const task = await create();
    const res = await f.api.post(`/tasks/${task.id}/comments`, bilal, { body: "Gate 2 is locked." });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body as object)).toEqual(["event"]);
    const event = expectEvent((res.body as { event: unknown }).event);
    expect(event).toMatchObject({ taskId: task.id, queue: "edits", type: "commented", actor: { name: "bilal" }, payload: { body: "Gate 2 is locked." } });
    expect(await rowOf(task.id)).toMatchObject({ version: 1 });
    const history = (await f.api.get(`/tasks/${task.id}/events`, watcher)).body as { events: { id: string }[] };
    expect(history.events.map((e) => e.id)).toContain(event.id);
  });

  test("4,001 characters: 400 naming body; an observer: 403; an unknown task: 404 — nothing written", async () => {
    const task = await create();
    const before = await f.eventCount();
    const long = expectError(await f.api.post(`/tasks/${task.id}/comments`, amal, { body: "x".repeat(4001) }), 400, "invalid_request");
    expect(long).toMatchObject({ field: "body", message: "body must be at most 4000 characters" });
    expectError(await f.api.post(`/tasks/${task.id}/comments`, amal, { body: "" }), 400, "invalid_request");
    expectError(await f.api.post(`/tasks/${task.id}/comments`, watcher, { body: "read-only" }), 403, "forbidden");
    expectError(await f.api.post("/tasks/99999999/comments", amal, { body: "where?" }), 404, "not_found");
    expect(await f.eventCount()).toBe(before);
    expect((await f.api.post(`/tasks/${task.id}/comments`, amal, { body: "x".repeat(4000) })).status).toBe(201);
  });
});
