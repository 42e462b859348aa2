import { queues } from "@/db/schema";
import { defineOperation } from "../core/engine";
import { appendEvents } from "../core/events";
import { getQueue } from "./queues";
import { createQueueInput } from "../core/schemas";
import { fail, ok } from "../core/types";
import { SUPERVISORS } from "../core/standing";

/**
 * Supervisor: make a queue, on purpose — the only way one comes to exist besides `default`
 * (a create or claim naming an unknown queue is a 400, so a typo never makes one). Its
 * settings are the defaults where not given. There is no queue_created event type, so the
 * fact is a settings_changed with `created: true` and every value the queue starts with:
 * the realtime stream carries it (the pickers learn the new name) and the log says who.
 */
export const createQueue = defineOperation({
  name: "createQueue",
  who: SUPERVISORS,
  input: createQueueInput,
  async run(tx, input, { actor, clock }) {
    const { name, paused = false, ...settings } = input;
    const now = clock.now();
    const [queue] = await tx
      .insert(queues)
      .values({ ...settings, name, paused, pausedBy: paused ? actor.id : null, pausedAt: paused ? now : null, createdAt: now, updatedAt: now })
      .onConflictDoNothing({ target: queues.name })
      .returning();
    if (!queue) {
      const existing = await getQueue(tx, name);
      const archived = existing?.archivedAt ? " (archived: restore it instead)" : "";
      return fail({ code: "invalid_request", field: "name", message: `queue '${name}' already exists${archived}` });
    }
    const { createdAt: _c, updatedAt: _u, breakerResetEventId: _b, ...state } = queue;
    await appendEvents(tx, clock, [{
      taskId: null, queue: name, type: "settings_changed", actorId: actor.id,
      payload: { created: true, by: actor.name, settings: state },
    }]);
    return ok(queue);
  },
});
