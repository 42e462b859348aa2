import { z } from "zod";
import { questionObject, taskObject } from "@/lib/http/wire";
import { LIMITS } from "@/lib/limits";
import { askQuestionBody, questionId, taskId } from "@/lib/tasks/model";
import { describeTool } from "./refusals";
import type { Tool } from "./tools";

// Issue 23's MCP tools (docs/contract.md#asking-a-person, docs/questions.md): ask_human asks and
// waits (the API's long-poll) up to LIMITS.questionWaitSeconds for the answer; get_answer reads
// (and waits for) it later. Each is typed-client calls; lib/mcp/tools.ts lists them in one line.

const OWNER = ["not_found", "version_conflict", "not_owner", "lease_expired", "invalid_transition", "busy"] as const;
const tool = <S extends z.ZodType>(t: Tool<S>) => t as unknown as Tool;
const wait = z.number().int().min(0).max(LIMITS.questionWaitSeconds).optional();

export const questionTools: Tool[] = [
  tool({
    name: "ask_human", title: "Ask a person and wait for the answer", endpoint: "askQuestion", leaseEffect: "sets",
    effect: { destructive: false, idempotent: false },
    description: describeTool(
      `Ask a person a question about a started task you hold, when you cannot go on without their decision (offer choices when the answer is one of a few). The task becomes awaiting_input: your lease is parked (no lapse, no heartbeat needed) and stays yours. This waits up to ${LIMITS.questionWaitSeconds} s (waitSeconds) for the answer: answered, the task is started again with a fresh lease and the answer is in question.answer; otherwise question.answer is null — call get_answer with question.id later. Unanswered by its deadline, the task goes to the supervisors' inbox.`,
      [...OWNER, "forbidden"],
    ),
    input: askQuestionBody.extend({ id: taskId, waitSeconds: wait }),
    output: z.object({ question: questionObject, task: taskObject }),
    hints: { choices: `The answers to offer as buttons (at most ${LIMITS.questionChoices}); none: a free-text answer.`, waitSeconds: `How long to wait for the answer here (0..${LIMITS.questionWaitSeconds}, default ${LIMITS.questionWaitSeconds}).` },
    async call(client, { id, version, waitSeconds, ...ask }) {
      const asked = await client.askQuestion({ id, version }, ask);
      const question = await client.getQuestion(id, asked.question.id, { wait: waitSeconds ?? LIMITS.questionWaitSeconds });
      const task = question.answer ? await client.getTask(id) : asked.task;
      return { question, task };
    },
  }),
  tool({
    name: "get_answer", title: "Read a question's answer", endpoint: "getQuestion", leaseEffect: "none",
    effect: { destructive: false, idempotent: true },
    description: describeTool(
      `Read a question you asked with ask_human (task id and question id), waiting up to waitSeconds (0..${LIMITS.questionWaitSeconds}) for its answer. question.answer is null while nobody has answered; once answered the task is started again for you with a fresh lease (read it with get_task); question.expiredAt set means it went unanswered past its deadline and the task went to the supervisors' inbox.`,
      ["not_found", "forbidden"],
    ),
    input: z.strictObject({ id: taskId, questionId, waitSeconds: wait }),
    output: z.object({ question: questionObject }),
    call: async (client, { id, questionId: question, waitSeconds }) => ({ question: await client.getQuestion(id, question, { wait: waitSeconds ?? 0 }) }),
  }),
];
