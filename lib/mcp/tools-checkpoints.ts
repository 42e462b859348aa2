import { z } from "zod";
import { checkpointObject, taskObject } from "@/lib/http/wire";
import { checkpointBody, taskId } from "@/lib/tasks/model";
import { describeTool } from "./refusals";
import type { Tool } from "./tools";

// The checkpoint tool (docs/contract.md "Checkpoints and progress", docs/checkpoints.md): one
// typed-client call with the API's body fields and the task as `id`; lib/mcp/tools.ts lists it with one line.

const tool = <S extends z.ZodType>(t: Tool<S>) => t as unknown as Tool;

export const checkpointTools: Tool[] = [
  tool({
    name: "checkpoint", title: "Record how far you got", endpoint: "recordCheckpoint", leaseEffect: "none",
    // A step again replaces that step's state of your attempt: repeating the call changes nothing more.
    effect: { destructive: false, idempotent: true },
    description: describeTool(
      "Call this after each step of a long task you hold (started): step is how many steps are done (1..200), state any JSON (≤ 64 KiB) you would need to resume from there (a cursor, the ids made so far). If your attempt ends (a crash, a lapse), the next holder's claim carries your latest checkpoint as task.checkpoint: resume after its step rather than starting over. When you are handed a task with a checkpoint, do that. Only the attempt holding the task now may record one; the version stays the same.",
      ["not_found", "version_conflict", "not_owner", "lease_expired", "invalid_transition", "busy", "forbidden"],
    ),
    input: checkpointBody.extend({ id: taskId }), output: z.object({ checkpoint: checkpointObject, task: taskObject }),
    call: (client, { id, version, step, state }) => client.checkpoint({ id, version }, step, state) as unknown as Promise<Record<string, unknown>>,
  }),
];
