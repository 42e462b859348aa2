import { z } from "zod";
import { taskObject } from "@/lib/http/wire";
import { reviewBody, taskId } from "@/lib/tasks/model";
import { describeTool } from "./refusals";
import type { Tool } from "./tools";

// review_task (docs/contract.md#review-before-done, docs/engine.md): one typed-client call with
// the API's body fields and the task as `id`. The reviewer rule (not the submitter, not a
// holder) is the engine's; this tool answers its self_review as every surface does.

const tool = <S extends z.ZodType>(t: Tool<S>) => t as unknown as Tool;

export const reviewTools: Tool[] = [
  tool({
    name: "review_task", title: "Review a submission", endpoint: "reviewTask", leaseEffect: "none",
    effect: { destructive: true, idempotent: true },
    description: describeTool(
      "Decide an in_review task's submission (task.submission: the result its worker completed with, and its digest). decision approve makes the task done (what waits for it is unblocked); reject sends it back to the queue with your note as the next claimant's hand-off, and counts as a failure (the queue's last strike sends it to a supervisor's inbox). Send the digest of the submission you read: if it changed since, the answer is submission_changed. You may not review a task you submitted or held (self_review).",
      ["not_found", "version_conflict", "invalid_transition", "self_review", "submission_changed", "forbidden"],
    ),
    input: reviewBody.extend({ id: taskId }), output: z.object({ task: taskObject }),
    hints: { note: "Why (for a reject: what is wrong and what to do instead — the next claimant reads it)." },
    call: async (client, { id, version, decision, digest, note }) =>
      ({ task: await client.review({ id, version }, decision, digest, note !== undefined ? { note } : {}) }) as unknown as Record<string, unknown>,
  }),
];
