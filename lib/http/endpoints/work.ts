import { z } from "zod";
import { verifyFenceInput, effectBody, resolveEffectBody, answerQuestionBody, askQuestionBody, readQuestionQuery, claimTokenBody, budget, checkpointBody, ackBody } from "@/lib/tasks/model";
import * as input from "@/lib/tasks/model";
import { claimTokenResponse, effectObject, effectResponse, errorObject, questionObject, questionResponse, fenceVerdictObject, checkpointObject, checkpointResponse, taskObject, taskResponse } from "../wire";
import { type Endpoint, OWNER_CALL_ERRORS, ownerCall, supervisorCall } from "./shape";

// An attempt's work on a task: the owner's calls, reviews, budgets, supervisors' decisions,
// effects, checkpoints, questions, fences and claim tokens.
export const workEndpoints = {
  claimTask: ownerCall("claimTask", "claim", "Claim a given task at the expected version", input.claimBody),
  startTask: ownerCall("startTask", "start", "Start a claimed task (confirmCheck for a needs_check task)", input.startBody),
  heartbeat: ownerCall("heartbeat", "heartbeat", "Renew the lease (same version)", input.heartbeatBody),
  ackTask: ownerCall("ackTask", "ack", "Acknowledge others' comments up to eventId (the holder): complete and new effect intents wait for it", ackBody),
  recordSideEffect: ownerCall("recordSideEffect", "side-effects", "Record that an external side effect begins", input.sideEffectBody),
  releaseTask: ownerCall("releaseTask", "release", "Give the task back to the queue", input.releaseBody),
  completeTask: {
    operationId: "completeTask", method: "POST", path: "/tasks/{id}/complete",
    summary: "Complete a started task; with `next`, claim the next task in the same transaction",
    body: input.completeBody, errors: OWNER_CALL_ERRORS,
    success: {
      status: 200,
      description: "The completed task; with `next` in the body, also the task claimed next (null when nothing was claimable)",
      schema: z.object({ task: taskObject, next: taskObject.nullable().optional() }),
    },
  },
  completions: {
    operationId: "completeTasks", method: "POST", path: "/completions",
    summary: "Complete up to 100 started tasks in one transaction; each item is its own guarded write",
    body: input.completionsInput,
    success: {
      status: 200,
      description: "One result per item, in the order given: the completed task, or why that item was refused",
      schema: z.object({
        results: z.array(z.union([
          z.object({ id: z.string(), ok: z.literal(true), task: taskObject }),
          z.object({ id: z.string(), ok: z.literal(false), error: errorObject.shape.error }),
        ])),
      }),
    },
    errors: [400, 413],
  },
  failTask: ownerCall("failTask", "fail", "Report a failed attempt (escalates on the last strike)", input.failBody),
  reviewTask: {
    operationId: "reviewTask", method: "POST", path: "/tasks/{id}/review",
    summary: "Approve (done) or reject (a strike: back to the queue with the note as the hand-off) an in_review task's submission; not by its submitter nor anyone who held it",
    body: input.reviewBody,
    success: { status: 200, description: "The task after the decision", schema: taskResponse },
    errors: [400, 403, 404, 409, 413],
  },
  raiseBudget: {
    operationId: "raiseBudget", method: "POST", path: "/tasks/{id}/budget",
    summary: "Supervisor: raise the budget of a task parked on it (awaiting_input, a budget question); its owner goes on with a fresh lease, the same attempt and fence",
    body: input.raiseBudgetBody,
    success: { status: 200, description: "The task after the raise (started)", schema: taskResponse },
    errors: [400, 403, 404, 409, 413],
  },
  setTokenBudget: {
    operationId: "setTokenBudget", method: "PATCH", path: "/tokens/{name}",
    summary: "Supervisor: set an agent token's monthly cap (null lifts it); at or over it this calendar month (UTC), claim-next hands the agent nothing",
    body: z.strictObject({ monthlyBudget: budget.nullable() }),
    success: {
      status: 200, description: "The token's cap after the change",
      schema: z.object({ name: z.string(), monthlyBudget: z.object({ limit: z.number(), unit: z.string() }).nullable() }),
    },
    errors: [400, 403, 404, 413],
  },
  requeueTask: supervisorCall("requeueTask", "requeue", "Supervisor: put an escalated task back in its queue, failures reset"),
  resolveTask: supervisorCall("resolveTask", "resolve", "Supervisor: settle an escalated task as done by hand"),
  cancelTask: supervisorCall("cancelTask", "cancel", "Supervisor: drop a queued or escalated task for good (what depends on it is escalated)"),
  forceReleaseTask: supervisorCall("forceReleaseTask", "force-release", "Supervisor: take a claimed or started task from its holder, back to queued (reason: the next claimant's hand-off note)"),
  releaseReservations: supervisorCall("releaseReservations", "release-reservations", "Supervisor: release what a task parked on a question reserves; it stays parked with its owner (docs/reservations.md)"),
  recordEffect: {
    operationId: "recordEffect", method: "POST", path: "/tasks/{id}/effects",
    summary: "Record an intent before acting outside the board (owner of a started task); the same key again answers the existing effect",
    body: effectBody,
    success: { status: 201, description: "The new effect (intended) and the task", schema: effectResponse },
    alsoAnswers: [{ status: 200, description: "The same key was recorded before on this task: the existing effect, its state unchanged", schema: effectResponse }],
    errors: OWNER_CALL_ERRORS,
  },
  listEffects: {
    operationId: "listEffects", method: "GET", path: "/tasks/{id}/effects",
    summary: "A task's effect ledger, oldest first",
    session: true,
    success: { status: 200, description: "Every effect of the task", schema: z.object({ effects: z.array(effectObject) }) },
    errors: [400, 404],
  },
  resolveEffect: {
    operationId: "resolveEffect", method: "POST", path: "/tasks/{id}/effects/{effectId}",
    summary: "Resolve an effect: intended → applied | failed by its attempt; unknown → applied | failed by the holder or a supervisor",
    body: resolveEffectBody,
    success: { status: 200, description: "The effect after the call and the task", schema: effectResponse },
    errors: OWNER_CALL_ERRORS,
  },
  // Checkpoints (docs/checkpoints.md): an owner write of the current attempt, and the task's steps.
  recordCheckpoint: {
    operationId: "recordCheckpoint", method: "POST", path: "/tasks/{id}/checkpoints",
    summary: "Record how far the attempt got (owner of a started task, the current attempt only): a step (1..200) and its state; a successor's claim carries the latest",
    body: checkpointBody,
    success: { status: 201, description: "The checkpoint and the task", schema: checkpointResponse },
    errors: OWNER_CALL_ERRORS,
  },
  listCheckpoints: {
    operationId: "listCheckpoints", method: "GET", path: "/tasks/{id}/checkpoints",
    summary: "A task's checkpoints, by attempt then step",
    session: true,
    success: { status: 200, description: "Every checkpoint of the task", schema: z.object({ checkpoints: z.array(checkpointObject) }) },
    errors: [400, 404],
  },
  askQuestion: {
    operationId: "askQuestion", method: "POST", path: "/tasks/{id}/questions",
    summary: "Ask a person (owner of a started task): the task becomes awaiting_input, its lease parked (no lapse, no heartbeat needed), the owner kept",
    body: askQuestionBody,
    success: { status: 201, description: "The question and the task (awaiting_input, version + 1)", schema: questionResponse },
    alsoAnswers: [{ status: 200, description: "A retry of an ask that took effect: the question it made", schema: questionResponse }],
    errors: OWNER_CALL_ERRORS,
  },
  getQuestion: {
    operationId: "getQuestion", method: "GET", path: "/tasks/{id}/questions/{questionId}",
    summary: "One question; with ?wait= (0..60 s) answers as soon as it is answered (or expires), or when the wait ends",
    session: true, query: readQuestionQuery,
    success: { status: 200, description: "The question", schema: z.object({ question: questionObject }) },
    errors: [400, 404, 429],
  },
  answerQuestion: {
    operationId: "answerQuestion", method: "POST", path: "/tasks/{id}/questions/{questionId}/answer",
    summary: "Answer a question (a person, or a supervisor token; never its asker: self_review): the task returns to started for its owner with a fresh lease",
    body: answerQuestionBody,
    success: { status: 200, description: "The answered question and the task (started, version + 1)", schema: questionResponse },
    errors: [400, 403, 404, 409, 413],
  },
  verifyFence: {
    operationId: "verifyFence", method: "POST", path: "/fences/verify",
    summary: "Check an agent's fence before acting on its request: does its attempt still hold the task, and if not, why not",
    body: verifyFenceInput,
    success: { status: 200, description: "What the fence names and whether that attempt is current", schema: fenceVerdictObject },
    errors: [400, 413],
  },
  createClaimToken: {
    operationId: "createClaimToken", method: "POST", path: "/tasks/{id}/claim-tokens",
    summary: "Mint a cbc_ token bound to this task and its current attempt, for the ops named (the owner; or a claim token narrowing itself): shown once, dead when the attempt ends",
    body: claimTokenBody,
    success: { status: 201, description: "The claim token (shown only in this answer) and what it is bound to", schema: claimTokenResponse },
    errors: [400, 404, 409, 413],
  },
} satisfies Record<string, Endpoint>;
