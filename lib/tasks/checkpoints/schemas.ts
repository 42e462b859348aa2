import { z } from "zod";
import { LIMITS } from "@/lib/limits";
import { jsonValue, taskId, version } from "../core/schemas";

// The checkpoints' inputs (docs/contract.md "Checkpoints and progress"): one schema per body,
// shared by the API, MCP and the engine. The state's 64 KiB is jsonValue's (a 400 naming `state`);
// a body beyond the API's limit is a 413 before it is read.

export const checkpointStep = z
  .number()
  .int("must be a whole number")
  .min(LIMITS.checkpointStep.min)
  .max(LIMITS.checkpointStep.max, `must be at most ${LIMITS.checkpointStep.max}`);

export const checkpointBody = z.strictObject({ version, step: checkpointStep, state: jsonValue.optional() });
export const checkpointInput = checkpointBody.extend({ taskId });
export const listCheckpointsInput = z.strictObject({ taskId });

export type CheckpointInput = z.infer<typeof checkpointInput>;
