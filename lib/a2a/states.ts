import { TaskState } from "@a2a-js/sdk";
import type { TaskStatus } from "@/db/schema";

// A board task's status as an A2A task state (docs/a2a.md#states). An A2A client sees what
// it can act on: waiting (submitted), in hand (working), a question for it (input-required),
// and the three ends. Review before done is still work in hand: `completed` means approved.
export const A2A_STATE: Record<TaskStatus, TaskState> = {
  queued: TaskState.TASK_STATE_SUBMITTED,
  claimed: TaskState.TASK_STATE_SUBMITTED,
  started: TaskState.TASK_STATE_WORKING,
  in_review: TaskState.TASK_STATE_WORKING,
  awaiting_input: TaskState.TASK_STATE_INPUT_REQUIRED,
  done: TaskState.TASK_STATE_COMPLETED,
  cancelled: TaskState.TASK_STATE_CANCELED,
  escalated: TaskState.TASK_STATE_FAILED,
};

/** The board statuses an A2A state stands for (ListTasks' status filter). */
export function boardStatusesOf(state: TaskState): TaskStatus[] {
  return (Object.keys(A2A_STATE) as TaskStatus[]).filter((status) => A2A_STATE[status] === state);
}

/** States after which nothing more happens to the task: a stream ends there. */
export const isFinal = (state: TaskState) =>
  state === TaskState.TASK_STATE_COMPLETED || state === TaskState.TASK_STATE_CANCELED || state === TaskState.TASK_STATE_FAILED;
