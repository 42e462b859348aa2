import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ClaimboardClient } from "@/lib/client";
import { ClaimboardApiError as ApiError } from "@/lib/client/errors";
import { claim, perform, release, type ActorRef } from "@/lib/tasks";
import { findActor } from "@/lib/tasks/core/actors";
import { cliActor } from "@/scripts/cli/database";
import { runCli } from "@/test/cli";
import { attackFixture, callAction, manifestActions, mustSignIn, stateDigest, type AttackFixture } from "@/test/attacks/helpers";
import { call, connect, resultJson, type McpSession } from "@/test/mcp/helpers";
import { expectError, expectTaskResponse, type WireTask } from "./helpers";

// Review before done (issue 23 item 2) over real HTTP: the self-review refusal, decided once
// in the engine, answered the same on every surface — HTTP, the typed client, MCP, the task
// page's server action, the CLI, the inbox's bulk review — with nothing written; a reject's note in the next
// claimant's hand-off; the third reject escalates; an approval unblocks a dependent; a stale
// digest is 409 submission_changed.

let f: AttackFixture;
let maker: string;
let checker: string;
let helper: string;
let mcp: McpSession;
let person: { email: string; password: string; actorId: string };
let cookie: string;
let boss: { email: string; password: string; actorId: string };
let bossCookie: string;
let cli: ActorRef;
const QUEUE = "reviewed";

beforeAll(async () => {
  f = await attackFixture();
  maker = await f.token("maker");
  checker = await f.token("checker");
  helper = await f.token("helper");
  await f.queueSettings(QUEUE, { review: "everyone" });
  person = await f.person("pat@example.com", "staff");
  cookie = await mustSignIn(f, person.email, person.password);
  boss = await f.person("sue@example.com", "supervisor");
  bossCookie = await mustSignIn(f, boss.email, boss.password);
  mcp = await connect(f, "http", maker);
  cli = await cliActor(f.database.db);
});
afterAll(async () => {
  await mcp?.close();
  await f?.close();
});

const post = (path: string, token: string, body: unknown) => f.api.post(path, token, body);

/** A task of QUEUE: `holders` (actors, in-process) each claim and release it first; then the maker claims, starts and completes it. */
async function submitted(result: unknown = { answer: 42 }, holders: ActorRef[] = [], dependsOn?: string[]): Promise<WireTask> {
  let task = expectTaskResponse(await post("/tasks", maker, { title: "reviewed work", queue: QUEUE, ...(dependsOn ? { dependsOn } : {}) }), 201);
  for (const holder of holders) {
    const held = await perform(claim, { taskId: task.id, version: task.version }, { db: f.database.db, actor: holder });
    if (!held.ok) throw new Error(held.error.message);
    const back = await perform(release, { taskId: task.id, version: held.value.version }, { db: f.database.db, actor: holder });
    if (!back.ok) throw new Error(back.error.message);
    task = { ...task, version: back.value.version };
  }
  task = expectTaskResponse(await post(`/tasks/${task.id}/claim`, maker, { version: task.version }));
  task = expectTaskResponse(await post(`/tasks/${task.id}/start`, maker, { version: task.version }));
  task = expectTaskResponse(await post(`/tasks/${task.id}/complete`, maker, { version: task.version, result }));
  expect(task.status).toBe("in_review");
  return task;
}

const approve = (task: WireTask) => ({ version: task.version, decision: "approve", digest: task.submission!.digest });

describe("self review is refused on every surface, with nothing written", () => {
  test("HTTP, the typed client, MCP, the task page's server action, the CLI and the inbox's bulk review each answer self_review", async () => {
    const personActor = (await findActor(f.database.db, person.actorId))!;
    const bossActor = (await findActor(f.database.db, boss.actorId))!;
    const task = await submitted({ b: 1, a: [1, 2] }, [personActor, cli, bossActor]);
    expect(task.submission).toMatchObject({ result: { a: [1, 2], b: 1 }, by: { name: "maker" }, attempt: 4 });
    const before = await stateDigest(f);
    const messages: string[] = [];

    // HTTP: the submitter.
    messages.push(expectError(await post(`/tasks/${task.id}/review`, maker, approve(task)), 403, "self_review").message);
    // The typed client (the agents' and the reference agent's surface): the same code.
    const client = new ClaimboardClient({ baseUrl: f.server.url, token: maker });
    const refused = await client.review(task, "approve", task.submission!.digest).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe("self_review");
    expect((refused as ApiError).status).toBe(403);
    // MCP: review_task with the submitter's token.
    const result = await call(mcp, "review_task", { id: task.id, ...approve(task) });
    expect(result.isError).toBe(true);
    const error = (resultJson(result) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("self_review");
    messages.push(error.message);
    // The task page's server action: a person who held an attempt earlier.
    const action = manifestActions().find((a) => a.exportedName === "reviewAction")!;
    expect(action, "reviewAction is in the build").toBeDefined();
    const answer = await callAction(f.server.url, action, [{ taskId: task.id, ...approve(task) }], { cookie });
    expect(answer.result, answer.text).toMatchObject({ ok: false, error: { code: "self_review" } });
    // The CLI: its operator actor held an attempt too.
    const ran = await runCli(["task", "review", task.id, "--version", String(task.version), "--decision", "reject", "--digest", task.submission!.digest], f.database.url);
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toContain("You held an attempt of task");
    // The inbox's bulk Approve (supervisors): a supervisor who held an attempt. The batch
    // answers ok, and this task's own line carries the refusal.
    const bulkAction = manifestActions().find((a) => a.exportedName === "bulkReviewAction")!;
    expect(bulkAction, "bulkReviewAction is in the build").toBeDefined();
    const bulk = await callAction(f.server.url, bulkAction, [{ decision: "approve", tasks: [{ taskId: task.id, version: task.version, digest: task.submission!.digest }] }], { cookie: bossCookie });
    expect(bulk.result, bulk.text).toMatchObject({ ok: true, value: { done: [], refused: [{ taskId: task.id, code: "self_review" }] } });
    const bulkMessage = (bulk.result as { value: { refused: { message: string }[] } }).value.refused[0]!.message;
    expect(bulkMessage).toMatch(/^You held an attempt of task/);
    expect(bulkMessage).toBe(answer.result!.error!.message); // the task page's action and the bulk one say the engine's one sentence

    expect(messages[0]).toBe(messages[1]); // HTTP and MCP say the engine's one sentence
    expect(answer.result!.error!.message).toMatch(/You held an attempt of task/);
    expect(await stateDigest(f), "a refused review changed the database").toEqual(before);

    // Someone who did not work on it may: the checker approves over HTTP.
    const done = expectTaskResponse(await post(`/tasks/${task.id}/review`, checker, approve(task)));
    expect(done).toMatchObject({ status: "done", version: task.version + 1, owner: { name: "maker" } });
  });

  test("a stale digest is 409 submission_changed with the task; a malformed one 400; nothing written", async () => {
    const task = await submitted({ v: 1 });
    const before = await stateDigest(f);
    const stale = expectError(await post(`/tasks/${task.id}/review`, checker, { ...approve(task), digest: "a".repeat(64) }), 409, "submission_changed");
    expect(stale.task).toMatchObject({ id: task.id, status: "in_review", submission: { digest: task.submission!.digest } });
    expectError(await post(`/tasks/${task.id}/review`, checker, { ...approve(task), digest: "not a digest" }), 400, "invalid_request");
    expectError(await post(`/tasks/${task.id}/review`, checker, { ...approve(task), decision: "maybe" }), 400, "invalid_request");
    expectError(await post(`/tasks/${task.id}/review`, checker, { ...approve(task), note: "x".repeat(2001) }), 400, "invalid_request");
    expect(await stateDigest(f)).toEqual(before);
  });
});

describe("decisions", () => {
  test("a reject's note reaches the next claimant's hand-off; the third reject escalates", async () => {
    const task = await submitted({ try: 1 });
    let current = task;
    const reviewers = [checker, helper, await f.token("third")];
    for (let strike = 1; strike <= 3; strike++) {
      current = expectTaskResponse(await post(`/tasks/${task.id}/review`, reviewers[strike - 1]!, {
        version: current.version, decision: "reject", digest: current.submission!.digest, note: `fix item ${strike}`,
      }));
      expect(current).toMatchObject({ failureCount: strike, owner: null, submission: null, status: strike < 3 ? "queued" : "escalated" });
      if (strike === 3) break;
      const next = expectTaskResponse(await post("/claims", maker, { queue: QUEUE, start: true }));
      expect(next).toMatchObject({ id: task.id, handoff: { summary: `fix item ${strike}`, by: { name: strike === 1 ? "checker" : "helper" } } });
      current = expectTaskResponse(await post(`/tasks/${task.id}/complete`, maker, { version: next.version, result: { try: strike + 1 } }));
      expect(current.status).toBe("in_review");
    }
    const events = (await f.api.get(`/tasks/${task.id}/events`, checker)).body as { events: { type: string }[] };
    expect(events.events.slice(-2).map((e) => e.type)).toEqual(["rejected", "escalated"]);
  });

  test("dependents stay blocked in review; the approval unblocks them", async () => {
    const upstream = await submitted({ built: true });
    await f.queue("after-review");
    const dependent = expectTaskResponse(await post("/tasks", maker, { title: "after", queue: "after-review", dependsOn: [upstream.id] }), 201) as WireTask & { blockedBy: string[] };
    expect(dependent.blockedBy).toEqual([upstream.id]);
    expect((await post("/claims", helper, { queue: "after-review" })).status).toBe(204);
    expectTaskResponse(await post(`/tasks/${upstream.id}/review`, checker, approve(upstream)));
    const unblocked = expectTaskResponse(await f.api.get(`/tasks/${dependent.id}`, helper)) as WireTask & { blockedBy: string[] };
    expect(unblocked.blockedBy).toEqual([]);
    expect(expectTaskResponse(await post("/claims", helper, { queue: "after-review" })).id).toBe(dependent.id);
  });

  test("a completion that would wait for review without a result is 400 naming result, and writes nothing", async () => {
    let task = expectTaskResponse(await post("/tasks", maker, { title: "nothing to read", queue: QUEUE }), 201);
    task = expectTaskResponse(await post(`/tasks/${task.id}/claim`, maker, { version: task.version }));
    task = expectTaskResponse(await post(`/tasks/${task.id}/start`, maker, { version: task.version }));
    const before = await stateDigest(f);
    for (const result of [undefined, null, "", {}, []]) {
      const refused = expectError(await post(`/tasks/${task.id}/complete`, maker, { version: task.version, ...(result === undefined ? {} : { result }) }), 400, "invalid_request");
      expect(refused.field).toBe("result");
    }
    expect(await stateDigest(f)).toEqual(before);
    expect(expectTaskResponse(await post(`/tasks/${task.id}/complete`, maker, { version: task.version, result: "shipped: see the PR" })).status).toBe("in_review");
  });
});
