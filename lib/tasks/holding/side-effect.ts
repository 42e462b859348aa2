import { defineOperation } from "../core/engine";
import { sideEffectInput } from "../core/schemas";
import { ok } from "../core/types";
import { recordInLedger } from "../effects/effects";

/**
 * The owner says an external action is about to begin in this attempt. Should the lease
 * lapse afterwards, the next claimant gets the task needs_check. Requires a valid lease:
 * a stale owner must not begin anything. Not a transition: the version stays.
 * Contract v1.2: it records an effect of the ledger named by the description (docs/effects.md),
 * with its v1 event (side_effect) as the fact.
 */
export const recordSideEffect = defineOperation({
  name: "recordSideEffect",
  makes: ["sideEffect"],
  input: sideEffectInput,
  async run(tx, input, { actor, clock }) {
    const recorded = await recordInLedger(tx, clock, actor, { taskId: input.taskId, version: input.version, name: input.description }, { description: input.description });
    return recorded.ok ? ok(recorded.value.task) : recorded;
  },
});
