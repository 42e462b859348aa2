import { Role, TaskState, type Artifact, type Message, type Part, type Task as A2ATask } from "@a2a-js/sdk";
import type { Question } from "@/lib/tasks";
import type { Task } from "@/lib/tasks/model";
import type { Outcome } from "./result";
import { A2A_STATE } from "./states";

// A board task as the A2A task an A2A client follows (docs/a2a.md). The A2A task is the board
// task: the same id, and a context of its own (a client's contextId is not kept: see the doc).

export const textPart = (value: string): Part => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "" });
export const dataPart = (value: unknown): Part => ({ content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" });

/** The context of a board task's A2A task: one per task. */
export const contextOf = (task: Pick<Task, "id">) => `claimboard-task-${task.id}`;

function agentMessage(task: Task, id: string, parts: Part[]): Message {
  return { messageId: id, contextId: contextOf(task), taskId: task.id, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/**
 * What the board says to the client with the state: the open question (input-required: its
 * text, and its choices as data), or why the task failed (its hand-off note).
 */
function statusMessage(task: Task, question: Question | null): Message | undefined {
  if (task.status === "awaiting_input" && question) {
    const parts = [textPart(question.question)];
    if (question.choices.length > 0) parts.push(dataPart({ choices: question.choices }));
    return agentMessage(task, `question-${question.id}`, parts);
  }
  if (task.status === "escalated" && task.handoff) return agentMessage(task, `escalated-${task.id}-${task.version}`, [textPart(task.handoff.summary)]);
  return undefined;
}

/** A done task's result: its one artifact. */
function resultArtifact(task: Task, outcome: Outcome | null): Artifact[] {
  if (task.status !== "done" || !outcome) return [];
  return [{
    artifactId: `result-${task.id}`,
    name: "result",
    description: "The result the completion sent (approved, where the queue reviews)",
    parts: [dataPart(outcome.result)],
    metadata: outcome.digest ? { digest: outcome.digest } : undefined,
    extensions: [],
  }];
}

export interface Seen {
  /** The open question, while awaiting_input. */
  question?: Question | null;
  /** The result, once done. */
  outcome?: Outcome | null;
}

export function toA2ATask(task: Task, seen: Seen = {}): A2ATask {
  return {
    id: task.id,
    contextId: contextOf(task),
    status: { state: A2A_STATE[task.status] ?? TaskState.TASK_STATE_UNSPECIFIED, message: statusMessage(task, seen.question ?? null), timestamp: task.updatedAt.toISOString() },
    artifacts: resultArtifact(task, seen.outcome ?? null),
    history: [],
    metadata: { claimboard: { status: task.status, queue: task.queue, version: task.version, title: task.title } },
  };
}
