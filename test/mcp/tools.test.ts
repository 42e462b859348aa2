import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { jsonSchema } from "@/lib/mcp/schemas";
import { tools } from "@/lib/mcp/tools";
import { expectTaskResponse, httpFixture, type HttpFixture } from "@/test/http/helpers";
import { call, connect, eventTypes, refusalOf, resultJson, taskDigest, taskOf, type McpSession, type TransportName } from "./helpers";

// The MCP server through the SDK's own Client, over stdio (`npm run mcp`'s script, which
// talks HTTP to the server) and over POST /api/mcp: the same tools, the same answers, the
// same refusals, checked against the database and the event log. What only one transport
// does (raw stdin, the HTTP endpoint's refusals, instances, renewals): tools-transport.test.ts.

let f: HttpFixture;
const tokens: Record<string, string> = {};
const sessions: McpSession[] = [];

beforeAll(async () => {
  f = await httpFixture();
  for (const [name, role] of [["mcp-stdio", "agent"], ["mcp-http", "agent"], ["rival", "agent"], ["watcher-stdio", "observer"], ["watcher-http", "observer"]] as const) {
    tokens[name] = await f.token(name, role);
  }
  // The queues the tests work in, made as a supervisor would (queues exist only on purpose).
  for (const queue of ["mcp-stdio", "mcp-http", "mcp-stdio-handoff", "mcp-http-handoff"]) await f.queue(queue);
  // list_queues and the "did you mean" of a mistyped queue (issue 27).
  await f.queueSettings("triage", { description: "Sort what comes in", claimants: "agents" });
});
afterAll(async () => {
  for (const s of sessions) await s.close().catch(() => {});
  if (f) {
    // No token in any log: the server's, nor either MCP process's.
    const logs = f.server.output() + sessions.map((s) => s.stderr()).join("");
    for (const [name, token] of Object.entries(tokens)) {
      expect(logs.includes(token) || logs.includes(token.slice(3)), `token ${name} in a log`).toBe(false);
    }
  }
  await f?.close();
});

const AGENT_TOOLS = [
  "add_comment", "claim_next_task", "claim_task", "complete_task", "create_task", "edit_task", "fail_task", "get_task", "list_tasks",
  "record_side_effect", "release_task", "report_progress", "start_task", "task_history", "task_readiness",
  // issue 22 (lib/mcp/tools-effects.ts)
  "record_effect", "resolve_effect", "verify_fence",
  // issue 23 (lib/mcp/tools-review.ts)
  "review_task",
  // issue 23 (lib/mcp/tools-questions.ts)
  "ask_human", "get_answer",
  // issue 27 (the open queues, lib/mcp/tools.ts)
  "list_queues",
  // checkpoints (lib/mcp/tools-checkpoints.ts)
  "checkpoint",
  // input read before done (lib/mcp/tools-input.ts)
  "ack",
].sort();

describe.each(["stdio", "http"] as TransportName[])("over %s", (transport) => {
  let mcp: McpSession;
  let watcher: McpSession;
  let agentName: string;
  const queue = `mcp-${transport}`;
  const create = async (title: string) =>
    expectTaskResponse(await f.api.post("/tasks", tokens.rival, { title, queue }), 201);

  beforeAll(async () => {
    agentName = `mcp-${transport}`;
    mcp = await connect(f, transport, tokens[agentName]!);
    watcher = await connect(f, transport, tokens[`watcher-${transport}`]!);
    sessions.push(mcp, watcher);
  });

  test("every tool is listed with the JSON Schema of the API's own zod schema; an observer sees only the read tools", async () => {
    const { tools: listed } = await mcp.client.listTools();
    expect(listed.map((t) => t.name).sort()).toEqual(AGENT_TOOLS);
    for (const t of listed) {
      const mine = tools.find((d) => d.name === t.name)!;
      expect(t.inputSchema).toEqual(jsonSchema(mine.input, "input", mine.hints));
      expect(t.inputSchema.additionalProperties, t.name).toBe(false);
      expect(t.outputSchema?.type).toBe("object");
      expect(t.description!.length, t.name).toBeGreaterThan(100);
      expect(t.description).toContain("invalid_request");
    }
    const claim = listed.find((t) => t.name === "claim_task")!;
    expect(claim.inputSchema.required).toEqual(["version", "id"]);
    expect((claim.inputSchema.properties as Record<string, { pattern?: string }>).id!.pattern).toBe("^[1-9][0-9]{0,18}$");
    expect(listed.find((t) => t.name === "start_task")!.description).toContain("check_required");

    const { tools: read } = await watcher.client.listTools();
    expect(read.map((t) => t.name).sort()).toEqual(["get_answer", "get_task", "list_queues", "list_tasks", "task_history", "task_readiness", "verify_fence"]);
    expect(read.every((t) => t.annotations?.readOnlyHint)).toBe(true);

    // Every tool carries the three behaviour hints; the reads are read-only, idempotent and
    // not destructive; a write is never read-only, and says whether it is destructive.
    for (const t of listed) {
      const { readOnlyHint, destructiveHint, idempotentHint } = t.annotations ?? {};
      for (const hint of [readOnlyHint, destructiveHint, idempotentHint]) expect(typeof hint, t.name).toBe("boolean");
      if (read.some((r) => r.name === t.name)) expect([readOnlyHint, destructiveHint, idempotentHint], t.name).toEqual([true, false, true]);
      else expect(readOnlyHint, t.name).toBe(false);
    }
    const hints = (name: string) => listed.find((t) => t.name === name)!.annotations!;
    // Completing ends the task for good; claiming the next one again claims another; a
    // version-fenced call repeated is refused, so it changes nothing more.
    expect(hints("complete_task")).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(hints("claim_next_task")).toMatchObject({ destructiveHint: false, idempotentHint: false });
    expect(hints("create_task")).toMatchObject({ destructiveHint: false, idempotentHint: false });
    expect(hints("claim_task")).toMatchObject({ destructiveHint: false, idempotentHint: true });
  });

  test("list_queues lists the open queues with their counts; an observer may call it; a mistyped queue answers 'did you mean'", async () => {
    await f.api.post("/tasks", tokens.rival, { title: `triage me (${transport})`, queue: "triage" });
    const answer = resultJson(await call(mcp, "list_queues", {})) as { queues: { name: string; description: string; claimants: string; paused: boolean; queued: number; held: number }[]; cap: number };
    const [row] = await f.database.client`SELECT count(*)::int AS n FROM tasks WHERE queue = 'triage' AND status = 'queued'`;
    expect(answer.queues.find((q) => q.name === "triage")).toEqual({
      name: "triage", description: "Sort what comes in", claimants: "agents", paused: false, queued: row!.n, held: 0,
    });
    const open = await f.database.client`SELECT name FROM queues WHERE archived_at IS NULL ORDER BY name`;
    expect(answer.queues.map((q) => q.name)).toEqual(open.map((q) => q.name));
    const watched = resultJson(await call(watcher, "list_queues", {})) as { queues: { name: string }[] };
    expect(watched.queues.map((q) => q.name)).toEqual(answer.queues.map((q) => q.name));
    await refusalOf(mcp, "list_queues", { queue: "triage" }, "invalid_request");

    const typo = await refusalOf(mcp, "claim_next_task", { queue: "triag" }, "invalid_request");
    expect(typo.message).toMatch(/^queue 'triag' does not exist .*\. Did you mean 'triage'\?$/);
    const far = await refusalOf(mcp, "claim_next_task", { queue: "zzzzzz" }, "invalid_request");
    expect(far.message).not.toContain("Did you mean");
  });

  test("create → claim_next_task (start) → report_progress → complete_task, in the database and the event log", async () => {
    const created = await taskOf(mcp, "create_task", { title: `Review inspection (${transport})`, queue, payload: { inspection: 7 } });
    expect(created).toMatchObject({ status: "queued", version: 1, queue });
    const started = await taskOf(mcp, "claim_next_task", { queue, start: true });
    // One act, one event: claimed and started at version 2.
    expect(started).toMatchObject({ id: created.id, status: "started", version: 2, owner: { name: agentName, kind: "agent" } });
    const beat = await taskOf(mcp, "report_progress", { id: created.id, version: 2, progress: { percent: 50 } });
    expect(beat.version).toBe(2);
    expect(Date.parse(beat.leaseUntil!)).toBeGreaterThanOrEqual(Date.parse(started.leaseUntil!));
    const done = await taskOf(mcp, "complete_task", { id: created.id, version: 2, result: { verdict: "ok" } });
    expect(done).toMatchObject({ status: "done", version: 3, leaseUntil: null });

    const [row] = await f.database.client`SELECT status, version, lease_until FROM tasks WHERE id = ${created.id}::bigint`;
    expect(row).toMatchObject({ status: "done", version: 3, lease_until: null });
    const events = (await eventTypes(f, created.id)).filter((e) => e.type !== "heartbeat" || e.payload.progress);
    expect(events.map((e) => [e.type, e.actor])).toEqual([
      ["created", agentName], ["claimed", agentName], ["heartbeat", agentName], ["completed", agentName],
    ]);
    expect(events[1]!.payload).toMatchObject({ started: true, status: "started" });
    expect(events[2]!.payload.progress).toEqual({ percent: 50 });
    // The MCP process names itself host:pid over stdio, as the typed client does; over HTTP
    // only a caller that sends Claimboard-Instance is named (below).
    if (transport === "stdio") expect(events[1]!.payload.instance).toMatch(/^.+:\d+$/);
    else expect(events[1]!.payload.instance).toBeUndefined();
    expect(events[3]!.payload).toMatchObject({ result: { verdict: "ok" } });

    const history = resultJson(await call(mcp, "task_history", { id: created.id }));
    expect((history.events as { type: string }[]).map((e) => e.type)).toContain("completed");
    // Nothing claimable: it waits (here 1 s, not the default 20) and answers null at the wait's end.
    const began = Date.now();
    const empty = resultJson(await call(mcp, "claim_next_task", { queue, wait: 1 }));
    expect(empty).toEqual({ task: null });
    expect(Date.now() - began).toBeGreaterThanOrEqual(900);
  });

  // Right after the test above, which leaves the queue empty: the next claimed is `second`.
  test("complete_task with next completes and claims the next task in one step; null when none is left", async () => {
    const first = await create("loop one");
    const second = await create("loop two");
    const held = await taskOf(mcp, "claim_task", { id: first.id, version: 1 });
    const started = await taskOf(mcp, "start_task", { id: first.id, version: held.version });
    const answer = resultJson(await call(mcp, "complete_task", { id: first.id, version: started.version, next: { queue, start: true } }));
    expect(answer.task).toMatchObject({ id: first.id, status: "done" });
    expect(answer.next).toMatchObject({ id: second.id, status: "started", owner: { name: agentName } });
    const next = answer.next as { id: string; version: number };
    const last = resultJson(await call(mcp, "complete_task", { id: next.id, version: next.version, next: { queue } }));
    expect(last.task).toMatchObject({ id: second.id, status: "done" });
    expect(last.next).toBeNull();
    // One transaction each: the completion and the next claim share the writing transaction.
    const [shared] = await f.database.client`
      SELECT count(DISTINCT tx_id)::int AS n FROM task_events
      WHERE (task_id = ${first.id}::bigint AND type = 'completed') OR (task_id = ${second.id}::bigint AND type IN ('claimed', 'started'))`;
    expect(shared?.n).toBe(1);
  });

  test("checkpoint records a step of the started attempt, the version kept; a step beyond 200 names its field", async () => {
    const task = await create("checkpointed");
    const held = await taskOf(mcp, "claim_task", { id: task.id, version: 1 });
    const started = await taskOf(mcp, "start_task", { id: task.id, version: held.version });
    const answer = resultJson(await call(mcp, "checkpoint", { id: task.id, version: started.version, step: 2, state: { cursor: "b" } }));
    expect(answer.checkpoint).toMatchObject({ step: 2, state: { cursor: "b" }, attempt: started.attempt, by: { name: agentName } });
    expect(answer.task).toMatchObject({ id: task.id, version: started.version, checkpoint: { step: 2 } });
    const error = await refusalOf(mcp, "checkpoint", { id: task.id, version: started.version, step: 201 }, "invalid_request");
    expect(error.field).toBe("step");
    await taskOf(mcp, "complete_task", { id: task.id, version: started.version, result: { steps: 2 } });
  });

  test("a stale version is version_conflict with the current task, and changes nothing", async () => {
    const task = await create("stale");
    const claimed = await taskOf(mcp, "claim_task", { id: task.id, version: 1 });
    const before = await taskDigest(f, task.id);
    const error = await refusalOf(mcp, "start_task", { id: task.id, version: 1 }, "version_conflict");
    expect(error.task).toMatchObject({ id: task.id, version: claimed.version });
    expect(await taskDigest(f, task.id)).toBe(before);
    await taskOf(mcp, "release_task", { id: task.id, version: claimed.version });
  });

  test("a task held by another agent: already_claimed and not_owner, and nothing changes", async () => {
    const task = await create("rival's");
    const held = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, tokens.rival, { version: 1 }));
    const before = await taskDigest(f, task.id);
    const lost = await refusalOf(mcp, "claim_task", { id: task.id, version: 1 }, "already_claimed");
    expect(lost.message).toContain("rival");
    await refusalOf(mcp, "start_task", { id: task.id, version: held.version }, "not_owner");
    await refusalOf(mcp, "complete_task", { id: task.id, version: held.version }, "not_owner");
    expect(await taskDigest(f, task.id)).toBe(before);
    // The lost claim is in the history as the API records one: claim_rejected, by the caller.
    expect((await eventTypes(f, task.id)).filter((e) => e.type === "claim_rejected").map((e) => e.actor)).toEqual([agentName]);
  });

  test("an observer calling a write tool is forbidden, and nothing changes", async () => {
    const task = await create("watched");
    const before = await taskDigest(f, task.id);
    const [count] = await f.database.client`SELECT count(*)::int AS n FROM tasks`;
    await refusalOf(watcher, "create_task", { title: "not allowed", queue }, "forbidden");
    await refusalOf(watcher, "claim_task", { id: task.id, version: 1 }, "forbidden");
    await refusalOf(watcher, "claim_next_task", { queue }, "forbidden");
    expect(await taskDigest(f, task.id)).toBe(before);
    expect((await f.database.client`SELECT count(*)::int AS n FROM tasks`)[0]).toEqual(count);
    expect(await taskOf(watcher, "get_task", { id: task.id })).toMatchObject({ id: task.id, status: "queued" });
  });

  test("malformed arguments are invalid_request naming the field; the server keeps working", async () => {
    const task = await create("malformed");
    const before = await taskDigest(f, task.id);
    expect((await refusalOf(mcp, "claim_task", { id: task.id, version: "1" }, "invalid_request")).field).toBe("version");
    expect((await refusalOf(mcp, "claim_task", { id: "abc", version: 1 }, "invalid_request")).field).toBe("id");
    expect((await refusalOf(mcp, "claim_task", { version: 1 }, "invalid_request")).field).toBe("id");
    expect((await refusalOf(mcp, "claim_task", { id: task.id, version: 1, sneaky: true }, "invalid_request")).message).toContain("sneaky");
    expect((await refusalOf(mcp, "claim_next_task", { leaseSeconds: 4 }, "invalid_request")).field).toBe("leaseSeconds");
    expect((await refusalOf(mcp, "fail_task", { id: task.id, version: 1, reason: "" }, "invalid_request")).field).toBe("reason");
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = [deep]; // deeper than a JSON value may nest (32)
    await refusalOf(mcp, "report_progress", { id: task.id, version: 1, progress: deep }, "invalid_request");
    await refusalOf(mcp, "create_task", { title: "x".repeat(201) }, "invalid_request");
    await refusalOf(mcp, "get_task", { id: "99999999" }, "not_found");
    await expect(mcp.client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/Unknown tool/);
    expect(await taskDigest(f, task.id)).toBe(before);
    expect(await taskOf(mcp, "get_task", { id: task.id })).toMatchObject({ status: "queued" });
  });

  test("a hand-off note on release_task reaches the next claimant; fail_task takes one too", async () => {
    const q = `${queue}-handoff`;
    const task = expectTaskResponse(await f.api.post("/tasks", tokens.rival, { title: "handed on", queue: q }), 201);
    const claimed = await taskOf(mcp, "claim_next_task", { queue: q, start: true });
    expect(claimed.id).toBe(task.id);
    const handoff = { summary: "read the first half", next: "the second half", artifacts: ["notes/half.md"] };
    const released = await taskOf(mcp, "release_task", { id: task.id, version: claimed.version, handoff });
    expect(released).toMatchObject({ status: "queued", handoff: { ...handoff, by: { name: agentName } } });
    const next = expectTaskResponse(await f.api.post("/claims", tokens.rival, { queue: q }));
    expect(next).toMatchObject({ id: task.id, handoff: { summary: "read the first half", next: "the second half" } });
    await f.api.post(`/tasks/${task.id}/release`, tokens.rival, { version: next.version });

    const again = await taskOf(mcp, "claim_next_task", { queue: q });
    expect((await refusalOf(mcp, "fail_task", { id: task.id, version: again.version, reason: "x", handoff: { summary: "" } }, "invalid_request")).field)
      .toBe("handoff.summary");
    const failed = await taskOf(mcp, "fail_task", { id: task.id, version: again.version, reason: "the file is corrupt", handoff: { summary: "tried twice" } });
    expect(failed).toMatchObject({ status: "queued", failureCount: 1, handoff: { summary: "tried twice", next: null, artifacts: [] } });
  });

  test("edit_task on a task it created, add_comment on anyone's; stale, foreign and oversized calls are refused and change nothing", async () => {
    const mine = await taskOf(mcp, "create_task", { title: "inspectoins", queue });
    const edited = await taskOf(mcp, "edit_task", { id: mine.id, version: 1, title: "inspections", priority: 2 });
    expect(edited).toMatchObject({ title: "inspections", priority: 2, version: 2 });
    const before = await taskDigest(f, mine.id);
    expect((await refusalOf(mcp, "edit_task", { id: mine.id, version: 1, title: "again" }, "version_conflict")).task).toMatchObject({ version: 2 });
    expect((await refusalOf(mcp, "edit_task", { id: mine.id, version: 2 }, "invalid_request")).message).toContain("at least one of");
    const theirs = await create("the rival's");
    await refusalOf(mcp, "edit_task", { id: theirs.id, version: 1, title: "mine now" }, "forbidden");

    const comment = resultJson(await call(mcp, "add_comment", { id: theirs.id, body: "gate 2 is locked" }));
    expect(comment.event).toMatchObject({ taskId: theirs.id, type: "commented", payload: { body: "gate 2 is locked" }, actor: { name: agentName } });
    expect((await refusalOf(mcp, "add_comment", { id: theirs.id, body: "x".repeat(4001) }, "invalid_request")).field).toBe("body");
    await refusalOf(watcher, "add_comment", { id: theirs.id, body: "observers only read" }, "forbidden");
    expect(await taskDigest(f, mine.id)).toBe(before);
    expect((await eventTypes(f, theirs.id)).map((e) => [e.type, e.actor])).toEqual([["created", "rival"], ["commented", agentName]]);
    expect((await eventTypes(f, mine.id)).map((e) => e.type)).toEqual(["created", "edited"]);
  });

  test("a blocked task: claim_task is not_ready, task_readiness says why", async () => {
    const first = await create("first");
    const second = await taskOf(mcp, "create_task", { title: "after the first", queue, dependsOn: [first.id] });
    const before = await taskDigest(f, second.id);
    const error = await refusalOf(mcp, "claim_task", { id: second.id, version: 1 }, "not_ready");
    expect(error.task).toMatchObject({ id: second.id, blockedBy: [first.id] });
    expect(await taskDigest(f, second.id)).toBe(before);
    const readiness = resultJson(await call(watcher, "task_readiness", { id: second.id }));
    expect(readiness).toMatchObject({ claimable: false, reasons: [{ code: "blocked" }] });
    expect(resultJson(await call(mcp, "task_readiness", { id: first.id }))).toMatchObject({ claimable: true, reasons: [] });
  });

  test("ask_human parks the task and waits: a supervisor's answer comes back with the task started again; get_answer reads it", { timeout: 120_000 }, async () => {
    const boss = await f.token(`boss-${transport}`, "supervisor");
    const created = await create("ask a person");
    const started = await taskOf(mcp, "claim_task", { id: created.id, version: created.version });
    const begun = await taskOf(mcp, "start_task", { id: created.id, version: started.version });
    const answering = (async () => {
      for (;;) {
        const [row] = await f.database.client<{ id: string }[]>`SELECT id::text FROM task_questions WHERE task_id = ${created.id}::bigint`;
        if (row) {
          await new Promise((resolve) => setTimeout(resolve, 300));
          return f.api.post(`/tasks/${created.id}/questions/${row.id}/answer`, boss, { text: "blue", choice: "blue" });
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const asked = resultJson(await call(mcp, "ask_human", { id: created.id, version: begun.version, question: "Which colour?", choices: ["red", "blue"], waitSeconds: 30 }));
    expect((await answering).status).toBe(200);
    expect(asked).toMatchObject({ question: { question: "Which colour?", answer: { text: "blue", choice: "blue" } }, task: { status: "started", owner: { name: agentName } } });
    const read = resultJson(await call(mcp, "get_answer", { id: created.id, questionId: (asked.question as { id: string }).id }));
    expect(read).toMatchObject({ question: { answer: { text: "blue" } } });
    expect((await eventTypes(f, created.id)).map((e) => e.type)).toEqual(expect.arrayContaining(["question_asked", "question_answered"]));
  });

  test("the task is a resource, and the prompt explains the loop", async () => {
    const task = await create("as a resource");
    const read = await mcp.client.readResource({ uri: `claimboard://tasks/${task.id}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ task: { id: task.id, title: "as a resource" } });
    // Listed: what the caller holds now, not what it finished (a done task keeps its owner).
    const finished = await create("finished as a resource");
    const claimed = await taskOf(mcp, "claim_task", { id: finished.id, version: 1 });
    const begun = await taskOf(mcp, "start_task", { id: finished.id, version: claimed.version });
    await taskOf(mcp, "complete_task", { id: finished.id, version: begun.version });
    const held = await taskOf(mcp, "claim_task", { id: task.id, version: 1 });
    const { resources } = await mcp.client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`claimboard://tasks/${held.id}`);
    expect(resources.map((r) => r.uri)).not.toContain(`claimboard://tasks/${finished.id}`);
    await taskOf(mcp, "release_task", { id: task.id, version: held.version });
    const { resourceTemplates } = await mcp.client.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual(["claimboard://tasks/{id}"]);
    await expect(mcp.client.readResource({ uri: "claimboard://tasks/99999999" })).rejects.toThrow(/not_found/);
    const prompt = await mcp.client.getPrompt({ name: "work_the_queue", arguments: { queue } });
    const text = (prompt.messages[0]!.content as { text: string }).text;
    for (const step of ["claim_next_task", "report_progress", "record_side_effect", "complete_task", "fail_task", "add_comment"]) expect(text).toContain(step);
    expect(text).toContain(queue);
  });
});
