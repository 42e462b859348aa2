import type { Tx } from "@/db/client";
import type { Queue } from "@/db/schema";
import { archiveQueue, unarchiveQueue } from "./archive-queue";
import { defineOperation, Rollback, type OperationContext } from "../core/engine";
import { setQueuePaused } from "./pause";
import { changeQueueSettings, getQueue } from "./queues";
import { updateQueueInput } from "../core/schemas";
import { fail, ok, type Result } from "../core/types";
import { SUPERVISORS } from "../core/standing";

type Step = (tx: Tx, ctx: OperationContext) => Promise<Result<Queue>>;

/**
 * Supervisor (PATCH /queues/{name}): settings, description, paused and archived in one
 * transaction, each through the operation that owns it — setQueueSettings' from → to,
 * setQueuePaused, archiveQueue / unarchiveQueue — so each writes its own event and asking
 * for what is already so writes nothing. A restore comes first and an archive last. A step
 * refused after an earlier one wrote (archiving default, say) rolls the whole call back.
 * A queue that does not exist is not_found: the path names the resource.
 */
export const updateQueue = defineOperation({
  name: "updateQueue",
  who: SUPERVISORS,
  input: updateQueueInput,
  async run(tx, input, ctx) {
    const { queue: name, paused, archived, ...settings } = input;
    if (!(await getQueue(tx, name))) return fail({ code: "not_found", message: `Queue '${name}' does not exist` });
    const steps: Step[] = [];
    if (archived === false) steps.push((t, c) => unarchiveQueue.run(t, { queue: name }, c));
    steps.push(async (t, c) => {
      const changed = await changeQueueSettings(t, c.clock, c.actor, { queue: name, ...settings });
      return changed.ok ? ok(changed.value.queue) : changed;
    });
    if (paused !== undefined) steps.push((t, c) => setQueuePaused.run(t, { queue: name, paused }, c));
    if (archived === true) steps.push((t, c) => archiveQueue.run(t, { queue: name }, c));
    let queue: Queue | undefined;
    for (const step of steps) {
      const result = await step(tx, ctx);
      if (!result.ok) throw new Rollback(result);
      queue = result.value;
    }
    return ok(queue!);
  },
});
