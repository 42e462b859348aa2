// What each refusal means to a model and what it should do next. Tool descriptions list
// the codes a tool can answer with; an error result carries `error.code` from docs/contract.md#errors.

export const REFUSALS = {
  invalid_request: "an argument is wrong (`error.field` names it): fix that argument; repeating the same call fails the same way.",
  unauthorized: "the token is missing, unknown or revoked: stop and tell the person running you.",
  forbidden: "this token's role may not do this (observer tokens only read): do not retry.",
  attempt_limit:
    "the queue caps how long one attempt may hold a task and this renewal would pass it; the lease was not extended. Finish now (complete_task) or hand the task on (release_task or fail_task with a handoff note) before the lease lapses — a lapse at the cap counts as a failure.",
  no_progress:
    "you renewed the lease too many times in a row without reporting anything new, so the attempt was failed and the task went back to the queue: stop working on it. Next time report a changed progress (report_progress), a checkpoint, an effect or a question as the work moves.",
  unread_human_input:
    "someone (a person first of all) commented on the task and you have not acknowledged it (`error.task.unread` lists the comments): read them, take them into account, call ack with the newest eventId, then complete or record the effect again.",
  not_found: "there is no task with that id: check the id (list_tasks).",
  already_claimed: "someone else holds the task (the message names them): leave it and take another (claim_next_task).",
  version_conflict:
    "the task changed since you read it; `error.task` is its current state: re-read it (get_task), decide again, and use the new version only if the task is still yours to act on.",
  not_owner: "you do not hold this task (someone else does, or nobody): stop working on it.",
  lease_expired:
    "your lease lapsed and the task is no longer yours (another agent may take it over): stop working on it, do not report results for it.",
  invalid_transition:
    "the task's status does not allow this (e.g. complete_task before start_task, or the task is already done): read `error.task.status` and call the tool that fits.",
  check_required:
    "the task is needs_check: an earlier attempt began an external side effect and may have finished it. Find out whether it happened (task_history shows the side_effect events), then start_task with confirmCheck: true, or release_task.",
  effects_unresolved:
    "the task cannot be completed while an effect an earlier attempt began is unknown (`error.task.openEffects`, state unknown; the message names them). For each: look it up in the other system by its idempotencyKey (the key that attempt sent), then resolve_effect with state applied (and the other system's reference as externalRef) if it happened, or failed if it did not. Do not redo an act that happened. Then complete_task again.",
  claim_ended:
    "this server acts on the task with a claim token, and the attempt it was made for has ended (completed, failed, released, taken back, or another agent holds the task now): stop working on the task; do not report results for it.",
  wrong_task: "the claim token this server uses for that task works only on its own task and its owner calls: call the tool with the task's own id.",
  op_not_allowed: "the claim token this server uses for the task was not given this op (CLAIMBOARD_CLAIM_OPS): do not retry; tell the person running you if the task needs it.",
  not_ready:
    "the task cannot be claimed yet: it waits for dependencies (`error.task.blockedBy`) or for its notBefore time. Take another (claim_next_task), or ask task_readiness when it will be.",
  queue_paused: "a supervisor paused the queue: nothing is handed out there now; work another queue or wait.",
  idempotency_conflict:
    "a task with this idempotencyKey already exists in the queue with different fields: use another key, or get_task the existing one if it is the same work.",
  dependency_cycle: "those dependencies would make a cycle: leave the offending one out.",
  busy: "another request is changing this task this instant: wait `error.retryAfter` seconds (about 1) and repeat the same call.",
  self_review:
    "someone else must decide this (maker–checker): you submitted the task or held an attempt of it and cannot review it, or you asked the question and cannot answer it. Do not retry; leave it to another person or reviewer.",
  submission_changed:
    "the digest you sent is not the task's submission (it changed since you read it): read the task again (get_task), review its submission, and send that digest.",
  rate_limited: "too many calls for this token: wait `error.retryAfter` seconds, then repeat the call.",
  unavailable: "the board's database cannot be reached: wait a few seconds and repeat the call; your lease keeps running meanwhile.",
  payload_too_large: "the arguments are too large (256 KiB per call, 64 KiB per JSON value): send less.",
  network_error: "the Claimboard server could not be reached: wait and repeat the call.",
} as const;

export type RefusalCode = keyof typeof REFUSALS;

/** Codes every tool may answer with, whatever it does. */
const ALWAYS: RefusalCode[] = ["invalid_request", "unauthorized", "rate_limited", "unavailable"];

/** `forbidden` on a claim: a queue's claimants rule as well as the role. */
export const CLAIM_FORBIDDEN =
  "the queue admits only people, or only agents, as claimants (the message names the rule), or this token's role may not claim: leave this queue's tasks alone.";

/** A tool's description: what it is for, then each refusal it can meet and what to do (`advice` overrides the common words). */
export function describeTool(purpose: string, codes: RefusalCode[], advice: Partial<Record<RefusalCode, string>> = {}): string {
  const all = [...new Set([...codes, ...ALWAYS])];
  const line = (code: RefusalCode) => `- ${code}: ${advice[code] ?? REFUSALS[code]}`;
  return `${purpose}\n\nRefusals (an error result whose JSON is {"error": {"code", "message", ...}}):\n${all.map(line).join("\n")}`;
}
