import { z } from "zod";
import { taskObject } from "@/lib/http/wire";
import { taskId, ackBody } from "@/lib/tasks/model";
import { describeTool } from "./refusals";
import type { Tool } from "./tools";

// ack (docs/leases.md): input read before done. Others' comments on a task you hold come back
// as task.unread on report_progress and claims; complete_task and record_effect answer
// unread_human_input until you acknowledge them here.

const tool = <S extends z.ZodType>(t: Tool<S>) => t as unknown as Tool;

export const inputTools: Tool[] = [
  tool({
    name: "ack", title: "Acknowledge comments", endpoint: "ackTask", leaseEffect: "none",
    effect: { destructive: false, idempotent: true },
    description: describeTool(
      "Acknowledge the comments others (a person first of all) left on a task you hold, once you have read them and taken them into account: task.unread lists them (report_progress and claims carry it). Send the newest eventId you read; a comment after it stays unread. complete_task and record_effect answer unread_human_input until you do. Answers {task} with what is still unread.",
      ["not_found", "not_owner", "version_conflict", "invalid_transition", "invalid_request"],
    ),
    input: ackBody.extend({ id: taskId }), output: z.object({ task: taskObject }),
    call: async (client, { id, version, eventId }) => ({ task: await client.ack({ id, version }, eventId) }) as unknown as Record<string, unknown>,
  }),
];
