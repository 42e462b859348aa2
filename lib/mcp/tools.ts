import type { z } from "zod";
import type { ClaimboardClient, Task } from "@/lib/client";
import type { endpoints } from "@/lib/http/endpoints";
import { CLAIM_FORBIDDEN, describeTool } from "./refusals";
import { toolInput as input, toolOutput as output } from "./schemas";
import { LIMITS, limitText } from "@/lib/limits";
import { RENEW_CADENCE_TEXT } from "@/lib/cadence";
import { RENEW } from "@/lib/acts";
import { effectTools } from "./tools-effects";
import { checkpointTools } from "./tools-checkpoints";
import { reviewTools } from "./tools-review";
import { inputTools } from "./tools-input";
import { questionTools } from "./tools-questions";

// The MCP tools: docs/contract.md's names, each one typed-client call (lib/client.ts) with the API's
// body fields and the task as `id`. What a tool answers is the API's JSON.

export interface Tool<S extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: S;
  output: z.ZodType;
  /** The API endpoint it calls: its roles in lib/http/endpoints.ts decide who is shown the tool. */
  endpoint: keyof typeof endpoints;
  /** Argument descriptions beyond the common ones (lib/mcp/schemas.ts). */
  hints?: Record<string, string>;
  /**
   * MCP's tool annotations beyond readOnlyHint (which is the endpoint's method: GET reads):
   * destructive — it ends or overwrites something that cannot simply be redone (a
   * completion, a strike, replaced fields), rather than only adding; idempotent — the
   * same arguments again change nothing more (the version fence refuses the repeat).
   * The read tools are neither destructive nor anything but idempotent.
   */
  effect: { destructive: boolean; idempotent: boolean };
  /** A read sent as POST (a body, e.g. verify_fence): read-only all the same. */
  readsOnly?: true;
  /** Whether a successful call itself sets the task's lease (claims, heartbeats) or ends it. */
  leaseEffect: "sets" | "ends" | "none";
  call(client: ClaimboardClient, args: z.infer<S>): Promise<Record<string, unknown>>;
}

const tool = <S extends z.ZodType>(t: Tool<S>) => t as unknown as Tool;
const ref = (args: { id: string; version: number }) => ({ id: args.id, version: args.version });
const wrap = async (task: Promise<Task>) => ({ task: await task });

/** claim_next_task waits this long for work unless told otherwise: a model's loop waits, never polls. */
export const MCP_CLAIM_WAIT_SECONDS = 20;

const OWNER = ["not_found", "version_conflict", "not_owner", "lease_expired", "invalid_transition", "busy"] as const;

export const tools: Tool[] = [
  tool({
    name: "claim_next_task", title: "Claim the next task", endpoint: "claimNext", leaseEffect: "sets",
    effect: { destructive: false, idempotent: false },
    description: describeTool(
      `Claim the most urgent claimable task of a queue (default queue: "default") and hold it under a lease. Call this when you are ready for work. With start: true it is claimed and started in one step (what you usually want); a needs_check task comes back claimed, not started — see start_task. With nothing claimable it waits for work up to wait seconds (default ${MCP_CLAIM_WAIT_SECONDS}, at most ${LIMITS.claimWaitSeconds}) and claims the moment a task becomes claimable; {task: null} means the wait ended with none: simply call it again (no pause needed). Read task.handoff first when it is set: the previous attempt's note (what was done, what comes next). Use skipNeedsCheck: true if you will not confirm checks. The lease lapses after leaseSeconds (default: the queue's) unless renewed; the MCP server renews it while you are connected over stdio, and report_progress renews it too.`,
      ["busy", "forbidden"],
      { forbidden: CLAIM_FORBIDDEN },
    ),
    input: input.claimNext, output: output.maybeTask,
    hints: { wait: `Seconds to wait for a claimable task (0..${LIMITS.claimWaitSeconds}, default ${MCP_CLAIM_WAIT_SECONDS}); 0 answers at once.` },
    // The wait is the API's (POST /claims with wait): idle time for the MCP request's deadline too (lib/deadline.ts).
    call: async (client, args) => ({ task: await client.claimNext({ ...args, wait: args.wait ?? MCP_CLAIM_WAIT_SECONDS }) }),
  }),
  tool({
    name: "claim_task", title: "Claim a given task", endpoint: "claimTask", leaseEffect: "sets",
    effect: { destructive: false, idempotent: true },
    description: describeTool(
      "Claim one particular queued task at the version you last saw (from get_task or list_tasks). Prefer claim_next_task unless you were asked to work on this task. Then call start_task.",
      ["already_claimed", "not_ready", "queue_paused", ...OWNER, "forbidden"],
      { forbidden: CLAIM_FORBIDDEN },
    ),
    input: input.claim, output: output.task,
    call: (client, args) => wrap(client.claimTask(ref(args))),
  }),
  tool({
    name: "start_task", title: "Start a claimed task", endpoint: "startTask", leaseEffect: "sets",
    effect: { destructive: false, idempotent: true },
    description: describeTool(
      "Start a task you have claimed, before doing any of its work; the version goes up by one — use the returned version next. For a needs_check task (needsCheck: true) pass confirmCheck: true only after you have checked whether the earlier attempt's side effect already happened.",
      ["check_required", ...OWNER, "forbidden"],
    ),
    input: input.start, output: output.task,
    call: (client, { confirmCheck, ...args }) => wrap(client.start(ref(args), { confirmCheck })),
  }),
  tool({
    name: RENEW.mcpTool, title: `Report progress (${RENEW.http})`, endpoint: "heartbeat", leaseEffect: "sets",
    effect: { destructive: false, idempotent: false },
    description: describeTool(
      `Tell the board how far you are (progress: any JSON, e.g. {"percent": 40, "step": "parsing"}) and renew the lease. Call it at each meaningful step of long work, and again whenever ${RENEW_CADENCE_TEXT} has passed; the version stays the same. Should your lease lapse, your last progress becomes the hand-off note for whoever takes the task over. Report what you spent since the last call as spend (in the task's budget unit, e.g. usd_cents or tokens): at the task's budget the answer is the task awaiting_input — stop and wait until a supervisor raises it (get_task shows status started again).`,
      [...OWNER, "attempt_limit", "forbidden"],
    ),
    input: input.heartbeat, output: output.task,
    call: (client, { progress, spend, ...args }) =>
      wrap(client.heartbeat(ref(args), { ...(progress === undefined ? {} : { progress }), ...(spend === undefined ? {} : { spend }) })),
  }),
  tool({
    name: "record_side_effect", title: "Record a side effect before acting", endpoint: "recordSideEffect", leaseEffect: "none",
    effect: { destructive: false, idempotent: false },
    description: describeTool(
      "Call this immediately BEFORE any action outside the board that must not happen twice (sending a mail, charging a card, pushing a commit, calling an external API that changes something), describing it. If your lease then lapses, the next claimant is told to check whether it happened. The version stays the same.",
      [...OWNER, "forbidden"],
    ),
    input: input.sideEffect, output: output.task,
    hints: { description: `What you are about to do outside the board, e.g. "send the invoice mail to ops@example.com" (1..${limitText(LIMITS.reason)} characters).` },
    call: (client, args) => wrap(client.recordSideEffect(ref(args), args.description)),
  }),
  tool({
    name: "complete_task", title: "Complete a started task", endpoint: "completeTask", leaseEffect: "ends",
    effect: { destructive: true, idempotent: true },
    description: describeTool(
      "Finish a started task you hold, with an optional result (any JSON: what you did, links, outputs). The task becomes done and leaves your hands. In a loop, pass next ({queue?, leaseSeconds?, start?}, like claim_next_task's arguments) to also claim — with start: true, start — the next task of that queue in the same step: the answer's next is that task, or null when nothing is claimable. A refused completion claims nothing; a refused next claim (forbidden) undoes the completion too.",
      [...OWNER, "forbidden", "effects_unresolved"],
      { forbidden: CLAIM_FORBIDDEN },
    ),
    input: input.complete, output: output.completed,
    hints: { next: "Claim the next task in the same step: {queue?, leaseSeconds?, start?} as for claim_next_task. Omit it to complete only." },
    call: async (client, { result, next, spend, ...args }) => {
      const options = { ...(result === undefined ? {} : { result }), ...(spend === undefined ? {} : { spend }) };
      return next ? client.completeAndClaimNext(ref(args), next, options) : wrap(client.complete(ref(args), options));
    },
  }),
  tool({
    name: "fail_task", title: "Fail this attempt", endpoint: "failTask", leaseEffect: "ends",
    effect: { destructive: true, idempotent: true },
    description: describeTool(
      "Give up on a task you hold because this attempt cannot succeed, with a reason a person can act on (what went wrong, what you tried). It goes back to the queue for another attempt, or to a supervisor's inbox (escalated) on the queue's last strike. Add a handoff note so the next attempt starts where you stopped.",
      [...OWNER, "forbidden"],
    ),
    input: input.fail, output: output.task,
    call: (client, { handoff, ...args }) => wrap(client.fail(ref(args), args.reason, handoff ? { handoff } : {})),
  }),
  tool({
    name: "release_task", title: "Give a task back", endpoint: "releaseTask", leaseEffect: "ends",
    effect: { destructive: false, idempotent: true },
    description: describeTool(
      "Hand a task you hold back to the queue without a strike — when you should not or cannot go on with it (not your skill, needs_check you will not confirm, out of time). With a handoff note the next claimant learns what you did and what comes next. Use fail_task instead when you tried and it failed.",
      [...OWNER, "forbidden"],
    ),
    input: input.release, output: output.task,
    call: (client, { handoff, ...args }) => wrap(client.release(ref(args), handoff ? { handoff } : {})),
  }),
  tool({
    name: "create_task", title: "Create a task", endpoint: "createTask", leaseEffect: "none",
    effect: { destructive: false, idempotent: false },
    description: describeTool(
      "Add a new queued task (version 1) for someone — a person or an agent — to claim: a follow-up you found, a piece of work split off. payload is a JSON object of details for whoever works it. dependsOn holds it back until those tasks are done; notBefore until a time. Pass an idempotencyKey when you might repeat the call (after a timeout): the repeat returns the task already made.",
      ["not_found", "idempotency_conflict", "forbidden", "payload_too_large"],
    ),
    input: input.create, output: output.task,
    hints: { description: `What is to be done, in as much detail as the worker needs (up to ${limitText(LIMITS.description)} characters).` },
    call: (client, args) => wrap(client.createTask(args)),
  }),
  tool({
    name: "get_task", title: "Read a task", endpoint: "getTask", leaseEffect: "none",
    effect: { destructive: false, idempotent: true },
    description: describeTool(
      "Read one task as it is now: status, owner, lease, version, needsCheck. Call it after a version_conflict, or before acting on a task you were told about.",
      ["not_found"],
    ),
    input: input.get, output: output.task,
    call: (client, args) => wrap(client.getTask(args.id)),
  }),
  tool({
    name: "task_readiness", title: "Can I claim it now?", endpoint: "taskReadiness", leaseEffect: "none",
    effect: { destructive: false, idempotent: true },
    description: describeTool(
      "Whether you could claim this task right now and, if not, every reason (codes: held, blocked — waits for dependencies, not_before, queue_paused, queue_archived, claimants, breaker_tripped, needs_check, status) and claimableAt when only time is in the way. Call it when claim_task answers not_ready, or before waiting on a task.",
      ["not_found"],
    ),
    input: input.readiness, output: output.readiness,
    call: (client, args) => client.readiness(args.id) as unknown as Promise<Record<string, unknown>>,
  }),
  tool({
    name: "list_tasks", title: "List tasks", endpoint: "listTasks", leaseEffect: "none",
    effect: { destructive: false, idempotent: true },
    description: describeTool(
      "List tasks, filtered by status, queue, owner: \"me\" (the tasks you hold) or needsCheck, a page at a time (limit 1..100; pass nextCursor back as cursor for the next page). q searches title, description and payload (every word; the last as a prefix). order: id (oldest first, default), newest, or priority (claim order); or sort: priority, created or updated (newest first).",
      [],
    ),
    input: input.list, output: output.tasks,
    call: (client, args) => client.listTasks(args as Parameters<ClaimboardClient["listTasks"]>[0]) as unknown as Promise<Record<string, unknown>>,
  }),
  tool({
    name: "list_queues", title: "List the queues", endpoint: "countTasks", leaseEffect: "none",
    effect: { destructive: false, idempotent: true },
    description: describeTool(
      "The open (not archived) queues you may pass as queue to claim_next_task, create_task or list_tasks, alphabetically: each with its name, description, who may claim its tasks (claimants: anyone, people or agents), whether it is paused (nobody claims from a paused queue), and how many of its tasks are queued and held (claimed, started or awaiting_input; each count stops at cap + 1). Call it before naming a queue you are not sure of.",
      [],
    ),
    input: input.listQueues, output: output.queues,
    call: async (client) => {
      const counts = await client.countTasks({});
      const held = (s: Record<string, number>) => (s.claimed ?? 0) + (s.started ?? 0) + (s.awaiting_input ?? 0);
      return {
        queues: counts.queues.map((q) => ({
          name: q.queue, description: q.description, claimants: q.claimants, paused: q.paused,
          queued: q.statuses.queued, held: held(q.statuses),
        })),
        cap: counts.cap,
      };
    },
  }),
  tool({
    name: "edit_task", title: "Edit a task", endpoint: "editTask", leaseEffect: "none",
    effect: { destructive: true, idempotent: true },
    description: describeTool(
      "Correct a queued or escalated task's title, description, priority or payload — or, while nobody has claimed it yet, move it to another queue or set or clear (null) its notBefore — at the version you last saw — a task you created or held last (a supervisor's token: any task, and its queue and notBefore at any time). Name only the fields to change; payload replaces the whole object. The version goes up by one; an edit that changes nothing changes nothing. Not for a task someone holds or one that is done.",
      ["not_found", "version_conflict", "invalid_transition", "forbidden", "busy", "payload_too_large"],
      {
        forbidden: "only whoever created the task, its last holder or a supervisor may edit it (observer tokens only read); once the task has been claimed, its queue, notBefore, reservations and budget are a supervisor's (error.field names which): leave them, or add_comment to ask.",
        invalid_transition: "the task is held or finished, and only a queued or escalated task can be edited: add_comment instead.",
      },
    ),
    input: input.edit, output: output.task,
    hints: {
      description: `The new description, replacing the old (up to ${limitText(LIMITS.description)} characters).`,
      payload: "The new payload, a JSON object replacing the old one entirely.",
    },
    call: (client, { id, version, ...changes }) => wrap(client.editTask({ id, version }, changes)),
  }),
  tool({
    name: "add_comment", title: "Comment on a task", endpoint: "addComment", leaseEffect: "none",
    effect: { destructive: false, idempotent: false },
    description: describeTool(
      "Leave a note on a task for the people and agents who read it: a question, what you found, why you skip it. Any task, in any status; it changes neither status nor version. Answers {event}: the comment as the task's history holds it (task_history lists it as type \"commented\").",
      ["not_found", "forbidden", "payload_too_large"],
    ),
    input: input.comment, output: output.event,
    call: async (client, args) => ({ event: await client.addComment(args.id, args.body) }),
  }),
  tool({
    name: "task_history", title: "A task's history", endpoint: "listTaskEvents", leaseEffect: "none",
    effect: { destructive: false, idempotent: true },
    description: describeTool(
      "The task's event log, oldest first: every claim, start, heartbeat (with progress), side effect, failure (with reason), lapse and completion, with who did it. Read it before confirming a needs_check task, or to learn what earlier attempts tried. Page with after: nextCursor.",
      ["not_found"],
    ),
    input: input.history, output: output.events,
    call: (client, { id, ...query }) => client.listTaskEvents(id, query) as unknown as Promise<Record<string, unknown>>,
  }),
  ...effectTools, // issue 22 (lib/mcp/tools-effects.ts)
  ...reviewTools, // issue 23 (lib/mcp/tools-review.ts)
  ...inputTools, // input read before done (lib/mcp/tools-input.ts)
  ...questionTools, // issue 23 (lib/mcp/tools-questions.ts)
  ...checkpointTools, // lib/mcp/tools-checkpoints.ts
];
