import { z } from "zod";
import type { ResolvedEffectState } from "@/db/schema";
import { LIMITS } from "@/lib/limits";
import { jsonValue, rowId, taskId, text, version } from "../core/schemas";

// The effect ledger's inputs (docs/contract.md#the-effect-ledger): one schema per body, shared by the API and the engine.

const DETAIL_MAX_BYTES = 16 * 1024;
const detail = jsonValue.refine((value) => Buffer.byteLength(JSON.stringify(value) ?? "", "utf8") <= DETAIL_MAX_BYTES, `must be at most ${DETAIL_MAX_BYTES / 1024} KiB of JSON`);

export const effectBody = z.strictObject({
  version,
  name: text(LIMITS.effectName, 1),
  key: text(LIMITS.effectKey, 1).optional(),
  target: text(LIMITS.effectTarget).optional(),
  detail: detail.optional(),
});
export const recordEffectInput = effectBody.extend({ taskId });

export const effectId = rowId("an effect id");

// db/schema/effects.ts's RESOLVED_EFFECT_STATES as an object the type holds equal to it (no state
// missing, none extra): this module is part of the model, which loads no schema module.
const RESOLVED = { applied: "applied", failed: "failed" } as const satisfies { [S in ResolvedEffectState]: S };

export const resolveEffectBody = z.strictObject({
  version,
  state: z.enum(RESOLVED, "must be applied or failed"),
  externalRef: text(LIMITS.externalRef).optional(),
  note: text(LIMITS.reason).optional(),
});
export const resolveEffectInput = resolveEffectBody.extend({ taskId, effectId });
export const listEffectsInput = z.strictObject({ taskId });

export type RecordEffectInput = z.infer<typeof recordEffectInput>;
export type ResolveEffectInput = z.infer<typeof resolveEffectInput>;
