import { eq } from "drizzle-orm";
import { queues } from "@/db/schema";
import { defineOperation } from "../core/engine";
import { appendEvents } from "../core/events";
import { lockQueue } from "./queues";
import { queuePausedInput } from "../core/schemas";
import { ok } from "../core/types";
import { SUPERVISORS } from "../core/standing";

/**
 * Supervisor: pause or resume claiming in a queue. While paused, claims hand out nothing
 * (claim-next answers none, a targeted claim queue_paused); owners finish what they hold.
 * A queue_paused / queue_resumed event names who; asking for the current state writes nothing.
 */
export const setQueuePaused = defineOperation({
  name: "setQueuePaused",
  who: SUPERVISORS,
  input: queuePausedInput,
  async run(tx, input, { actor, clock }) {
    const locked = await lockQueue(tx, input.queue);
    if (!locked.ok) return locked;
    if (locked.value.paused === input.paused) return ok(locked.value);
    const [queue] = await tx
      .update(queues)
      .set({
        paused: input.paused,
        pausedBy: input.paused ? actor.id : null,
        pausedAt: input.paused ? clock.now() : null,
        updatedAt: clock.now(),
      })
      .where(eq(queues.name, input.queue))
      .returning();
    await appendEvents(tx, clock, [{
      taskId: null, queue: input.queue, type: input.paused ? "queue_paused" : "queue_resumed", actorId: actor.id,
      payload: { by: actor.name },
    }]);
    return ok(queue!);
  },
});
