import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { endpoints, type Endpoint } from "@/lib/http/endpoints";
import { expectError, expectTask, httpFixture, type HttpFixture, type WireTask } from "./helpers";

// Contract v1.1's agent loop over real HTTP: complete with `next`, batch completion, and the
// 405 every route answers for a method it does not serve.

let f: HttpFixture;
let token: string;
let other: string;
beforeAll(async () => {
  f = await httpFixture();
  token = await f.token("loop-agent");
  other = await f.token("other-agent");
});
afterAll(async () => {
  await f?.close();
});

/** A task in `queue` (made first when new: queues exist only on purpose). */
async function create(queue: string, title = "work"): Promise<WireTask> {
  await f.queue(queue);
  const res = await f.api.post("/tasks", token, { title, queue });
  expect(res.status).toBe(201);
  return (res.body as { task: WireTask }).task;
}

async function startedNext(queue: string, who = token): Promise<WireTask> {
  const res = await f.api.post("/claims", who, { queue, start: true });
  expect(res.status).toBe(200);
  return expectTask((res.body as { task: unknown }).task);
}

describe("POST /tasks/{id}/complete with next", () => {
  test("completes, then claims and starts the next task in one call", async () => {
    await create("http-loop", "one");
    const second = await create("http-loop", "two");
    const first = await startedNext("http-loop");

    const res = await f.api.post(`/tasks/${first.id}/complete`, token, { version: first.version, result: { ok: true }, next: { queue: "http-loop", start: true } });
    expect(res.status).toBe(200);
    const body = res.body as { task: unknown; next: unknown };
    expect(expectTask(body.task)).toMatchObject({ id: first.id, status: "done" });
    expect(expectTask(body.next)).toMatchObject({ id: second.id, status: "started", owner: { name: "loop-agent" } });

    const drained = await f.api.post(`/tasks/${second.id}/complete`, token, { version: 2, next: { queue: "http-loop" } });
    expect(drained.status).toBe(200);
    expect(drained.body).toMatchObject({ task: { status: "done" }, next: null });
  });

  test("without next the answer is v1's {task}", async () => {
    await create("http-plain");
    const task = await startedNext("http-plain");
    const res = await f.api.post(`/tasks/${task.id}/complete`, token, { version: task.version });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body as object)).toEqual(["task"]);
  });

  test("an invalid next is a 400 naming the field; a refused completion claims nothing", async () => {
    await create("http-refused", "held");
    const waiting = await create("http-refused", "waiting");
    const task = await startedNext("http-refused");
    const events = await f.eventCount();

    const bad = expectError(await f.api.post(`/tasks/${task.id}/complete`, token, { version: task.version, next: { limit: 3 } }), 400, "invalid_request");
    expect(bad.message).toMatch(/limit/);
    expect(expectError(await f.api.post(`/tasks/${task.id}/complete`, token, { version: task.version, next: { leaseSeconds: 2 } }), 400, "invalid_request").field).toBe("next.leaseSeconds");
    expectError(await f.api.post(`/tasks/${task.id}/complete`, other, { version: task.version, next: { queue: "http-refused" } }), 409, "not_owner");
    expect(await f.eventCount()).toBe(events);
    const still = await f.api.get(`/tasks/${waiting.id}`, token);
    expect(still.body).toMatchObject({ task: { status: "queued", owner: null } });
  });
});

describe("POST /completions", () => {
  test("per-item results in the order given; refused items leave the others done", async () => {
    for (let i = 0; i < 3; i++) await create("http-batch", `b${i}`);
    const claimed = await f.api.post("/claims/batch", token, { queue: "http-batch", limit: 3, start: true });
    const tasks = (claimed.body as { tasks: WireTask[] }).tasks;
    expect(tasks).toHaveLength(3);

    const res = await f.api.post("/completions", token, {
      tasks: [
        { id: tasks[0]!.id, version: tasks[0]!.version, result: { n: 0 } },
        { id: tasks[1]!.id, version: 1 },
        { id: tasks[2]!.id, version: tasks[2]!.version },
      ],
    });
    expect(res.status).toBe(200);
    const results = (res.body as { results: { id: string; ok: boolean; task?: unknown; error?: { code: string; task?: unknown } }[] }).results;
    expect(results.map((r) => [r.id, r.ok])).toEqual([[tasks[0]!.id, true], [tasks[1]!.id, false], [tasks[2]!.id, true]]);
    expect(expectTask(results[0]!.task)).toMatchObject({ status: "done" });
    expect(results[1]!.error).toMatchObject({ code: "version_conflict" });
    expect(expectTask(results[1]!.error!.task)).toMatchObject({ status: "started" });
  });

  test("101 items, none, a duplicate id, another caller's role: refused whole, nothing written", async () => {
    const events = await f.eventCount();
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: String(9000 + i), version: 1 }));
    expect(expectError(await f.api.post("/completions", token, { tasks: items(101) }), 400, "invalid_request").field).toBe("tasks");
    expectError(await f.api.post("/completions", token, { tasks: [] }), 400, "invalid_request");
    const dup = expectError(await f.api.post("/completions", token, { tasks: [...items(2), items(1)[0]] }), 400, "invalid_request");
    expect(dup.field).toBe("tasks.2.id");
    const observer = await f.token("loop-observer", "observer");
    expectError(await f.api.post("/completions", observer, { tasks: items(1) }), 403, "forbidden");
    expect(await f.eventCount()).toBe(events);
  });
});

describe("a method a path does not serve", () => {
  const paths = new Map<string, Endpoint[]>();
  for (const endpoint of Object.values(endpoints) as Endpoint[]) paths.set(endpoint.path, [...(paths.get(endpoint.path) ?? []), endpoint]);

  test.each([...paths.entries()])("%s: 405 method_not_allowed with Allow, OPTIONS lists the same", async (path, served) => {
    const url = path.replace(/\{\w+\}/g, "1");
    const allowed = served.map((e) => e.method);
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((m) => !allowed.includes(m as never))) {
      const res = await f.api.request(method, url, { token, json: method === "GET" ? undefined : {} });
      const error = expectError(res, 405, "method_not_allowed");
      expect(error.message).toContain(method);
      const allow = res.headers.get("allow")!.split(", ");
      expect(allow).toEqual(expect.arrayContaining([...allowed, "OPTIONS"]));
      expect(allow).not.toContain(method);
    }
    const options = await f.api.request("OPTIONS", url);
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")!.split(", ").sort()).toEqual([...allowed, ...(allowed.includes("GET") ? ["HEAD"] : []), "OPTIONS"].sort());
  });

  test("/api/mcp: the same 405 for every method but POST (no GET stream, no session to DELETE)", async () => {
    for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
      const res = await fetch(`${f.server.url}/api/mcp`, { method, headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(405);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("method_not_allowed");
      expect(res.headers.get("allow")).toBe("POST, OPTIONS");
    }
  });
});
