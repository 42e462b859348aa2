import type {
  AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest, GetTaskPushNotificationConfigRequest,
  GetTaskRequest, ListTaskPushNotificationConfigsRequest, ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse,
  Message, SendMessageRequest, StreamResponse, SubscribeToTaskRequest, Task as A2ATask, TaskPushNotificationConfig,
} from "@a2a-js/sdk";
import { ExtendedAgentCardNotConfiguredError, PushNotificationNotSupportedError } from "@a2a-js/sdk/errors";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import type { z } from "zod";
import type { Db } from "@/db/client";
import * as engine from "@/lib/tasks";
import type { Operation, Question } from "@/lib/tasks";
import type { Result, Task } from "@/lib/tasks/model";
import { a2aError, taskNotFound } from "./errors";
import { createFrom, replyFrom } from "./messages";
import { a2aKey, listOwnA2ATasks, ownA2ATask } from "./owned";
import { outcomeOf } from "./result";
import { boardStatusesOf } from "./states";
import { follow } from "./stream";
import { toA2ATask } from "./wire";

// The A2A request handler over the engine (docs/a2a.md): the SDK's JSON-RPC transport handler
// parses and answers the protocol, this class does each method as one or two engine calls, as
// the caller (its actor and token standing: the engine decides who may). One per request.

export interface Caller {
  db: Db;
  actorId: string;
  /** Runs an engine operation as the caller (lib/http/handler.ts's Call.run). */
  run<S extends z.ZodType, O>(op: Operation<S, O>, input: unknown): Promise<Result<O>>;
  card: AgentCard;
}

const PAGE_SIZE = { default: 50, max: 100 };

export class ClaimboardA2AHandler implements A2ARequestHandler {
  constructor(private readonly caller: Caller) {}

  async getAgentCard(): Promise<AgentCard> {
    return this.caller.card;
  }

  async getAuthenticatedExtendedAgentCard(_params: GetExtendedAgentCardRequest): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError();
  }

  /** A new message creates a board task; a message naming a task answers its open question. */
  async sendMessage(params: SendMessageRequest): Promise<Message | A2ATask> {
    return this.taskFor(params);
  }

  async *sendMessageStream(params: SendMessageRequest): AsyncGenerator<StreamResponse, void, undefined> {
    const first = await this.taskFor(params);
    yield* follow(first, () => this.load(first.id));
  }

  async getTask(params: GetTaskRequest): Promise<A2ATask> {
    const task = await this.load(params.id);
    if (!task) throw taskNotFound(params.id);
    return task;
  }

  async cancelTask(params: CancelTaskRequest): Promise<A2ATask> {
    const task = await ownA2ATask(this.caller.db, this.caller.actorId, params.id);
    if (!task) throw taskNotFound(params.id);
    const cancelled = await this.caller.run(engine.cancel, { taskId: task.id, version: task.version, reason: "Cancelled by its A2A client" });
    if (!cancelled.ok) throw a2aError(cancelled.error, "cancel");
    return toA2ATask(cancelled.value);
  }

  async listTasks(params: ListTasksRequest): Promise<ListTasksResponse> {
    const limit = Math.min(Math.max(params.pageSize || PAGE_SIZE.default, 1), PAGE_SIZE.max);
    if (params.pageToken && !/^[1-9][0-9]{0,18}$/.test(params.pageToken)) throw a2aError({ code: "invalid_request", message: "pageToken must be a nextPageToken this server sent" });
    const statuses = params.status ? boardStatusesOf(params.status) : null; // 0: unspecified, every state
    const page = await listOwnA2ATasks(this.caller.db, this.caller.actorId, { statuses, before: params.pageToken || null, limit });
    const tasks = await Promise.all(page.tasks.map((task) => this.view(task)));
    return { tasks, nextPageToken: page.next, pageSize: limit, totalSize: page.total };
  }

  async *resubscribe(params: SubscribeToTaskRequest): AsyncGenerator<StreamResponse, void, undefined> {
    const first = await this.getTask({ tenant: params.tenant, id: params.id });
    yield* follow(first, () => this.load(first.id));
  }

  // Push notifications would need a delivery of their own beside the webhook outbox: not offered (docs/a2a.md).
  async createTaskPushNotificationConfig(_params: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError();
  }

  async getTaskPushNotificationConfig(_params: GetTaskPushNotificationConfigRequest): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError();
  }

  async listTaskPushNotificationConfigs(_params: ListTaskPushNotificationConfigsRequest): Promise<ListTaskPushNotificationConfigsResponse> {
    throw new PushNotificationNotSupportedError();
  }

  async deleteTaskPushNotificationConfig(_params: DeleteTaskPushNotificationConfigRequest): Promise<void> {
    throw new PushNotificationNotSupportedError();
  }

  private async taskFor(params: SendMessageRequest): Promise<A2ATask> {
    const message = params.message;
    if (message?.taskId) return this.reply(message);
    const input = createFrom(message);
    const created = await this.caller.run(engine.createTaskOnce, { ...input.task, idempotencyKey: a2aKey(input.messageId) });
    if (!created.ok) throw a2aError(created.error);
    return this.view(created.value.task);
  }

  /** A reply on an input-required task answers its open question, as a person would: the engine's answerQuestion and its rule. */
  private async reply(message: Message): Promise<A2ATask> {
    const task = await ownA2ATask(this.caller.db, this.caller.actorId, message.taskId);
    if (!task) throw taskNotFound(message.taskId);
    const open = task.status === "awaiting_input" ? await this.openQuestion(task) : null;
    if (!open) throw a2aError({ code: "invalid_transition", message: `Task ${task.id} is ${task.status}: a message on a task answers its open question, and it has none` });
    const answered = await this.caller.run(engine.answerQuestion, { taskId: task.id, questionId: open.id, ...replyFrom(message, open.choices) });
    if (!answered.ok) throw a2aError(answered.error);
    return this.view(answered.value.task);
  }

  private async load(id: string): Promise<A2ATask | null> {
    const task = await ownA2ATask(this.caller.db, this.caller.actorId, id);
    return task && this.view(task);
  }

  /** The A2A task with what its state shows: the open question, or the result. */
  private async view(task: Task): Promise<A2ATask> {
    const question = task.status === "awaiting_input" ? await this.openQuestion(task) : null;
    return toA2ATask(task, { question, outcome: await outcomeOf(this.caller.db, task) });
  }

  private async openQuestion(task: Task): Promise<Question | null> {
    const listed = await this.caller.run(engine.listTaskQuestions, { taskId: task.id });
    if (!listed.ok) return null;
    return listed.value.findLast((q) => q.answer === null && q.expiredAt === null) ?? null;
  }
}
