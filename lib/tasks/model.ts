// The engine's model (docs/architecture.md#the-engines-folders): what a task is and may become,
// with no database behind it — types, the state machine, standings, input schemas, event
// names. Client components import from here (never from "@/lib/tasks", which pulls the server
// in); server code may too. Its runtime imports reach no db/ module and no package but zod
// (lib/tasks/entries.test.ts checks it).
export { readinessCodes } from "./claiming/readiness-codes";
export { SETTLES_QUESTION, waitUntilSettled } from "./questions/wait";
export { answerQuestionBody, askQuestionBody, readQuestionQuery, questionId, answerQuestionInput } from "./questions/schemas";
export { effectBody, resolveEffectBody, effectId, listEffectsInput, resolveEffectInput } from "./effects/schemas";
export { verifyFenceInput, FENCE_HEADER } from "./fences/verify-input";
export { budget } from "./core/budget";
export { CLAIM_TOKEN_PREFIX, type ClaimOp, claimTokenBody, CLAIM_OPS } from "./claim-tokens/ops";
export { ANSWERERS, asksItself } from "./questions/rules";
export { type TaskOrder, type TaskSort, countTasksQuery, listEventsQuery, listTasksQuery } from "./reads/query-schemas";
export type { EventsArchivedPayload, EditedPayload, FieldChange } from "./core/event-payloads";
export { EVENT_TYPES, EVENTS, isEventType, touchedBy, claimStarted, ALSO_ANSWERS } from "./core/machine-events";
export { CLAIMABLE, HELD, MOVES, FINISHED, waiting, type MoveName, type MoveRow, BOARD_ORDER, PARKED, EDITABLE } from "./core/machine";
export { personStanding, EVERYONE, type Standing, SUPERVISORS, article, tokenStanding, tokenRoles, WORKERS, editsAnyTask, mayMake, personRoles, PEOPLE } from "./core/standing";
export { formatAmount } from "./budgets/amount";
export { queueName, taskId, completeInput, lineText, text, superviseBody, createTaskInput, dependenciesBody, removeDependencyBody, editTaskBody, commentBody, claimNextInput, claimBatchInput, claimBody, startBody, heartbeatBody, sideEffectBody, releaseBody, completeBody, completionsInput, failBody, reviewBody, raiseBudgetBody, createQueueInput, updateQueueBody, instanceHeader, queuePath, taskPath, requireAnEdit, editTaskFields, queueInput, queueSettingsInput, editTaskInput, commentInput, reviewInput, raiseBudgetInput } from "./core/schemas";
export { ok, type Task, type EngineError, type Result, type ActorRef, fail, type EngineErrorCode, conflictCodes } from "./core/types";
export { safeParse, validationError } from "./core/parse";
export { checkpointBody } from "./checkpoints/schemas";
export { LEASE_REASONS, LEASE_STATES } from "./holding/lease-codes";
export { ackBody } from "./holding/ack-body";
