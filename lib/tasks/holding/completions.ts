import { completeTasks } from "./complete";
import { defineOperation } from "../core/engine";
import { oneEventWrite } from "../core/events";
import { completionsInput } from "../core/schemas";
import { ok, type EngineError, type Task } from "../core/types";

export type CompletionResult = { id: string; ok: true; task: Task } | { id: string; ok: false; error: EngineError };

/**
 * A batch agent's completions (1..100) in one transaction, one event write and one NOTIFY.
 * Each item is its own guarded write: a refused item (someone else's, stale, not started)
 * leaves the others done and says why in its own result, in the order given.
 */
export const completeMany = defineOperation({
  name: "completeMany",
  makes: ["complete"],
  input: completionsInput,
  async run(tx, input, { actor, clock, instance }) {
    const items = input.tasks.map((item) => ({ taskId: item.id, version: item.version, result: item.result }));
    const results = await oneEventWrite(tx, clock, () => completeTasks(tx, clock, actor, items, instance));
    return ok(results.map((result, index): CompletionResult => {
      const id = input.tasks[index]!.id;
      return result.ok ? { id, ok: true, task: result.value } : { id, ok: false, error: result.error };
    }));
  },
});
