import { tasks } from "@/db/schema";
import { defineOperation } from "./engine";
import { appendEvents } from "./events";
import { DEFAULT_QUEUE, ensureQueue } from "./queues";
import { createTaskInput } from "./schemas";
import { toTask } from "./task-row";
import { ok } from "./types";

/** A new task, queued at version 1; its queue is created with the defaults if new. */
export const createTask = defineOperation({
  name: "createTask",
  input: createTaskInput,
  async run(tx, input, { actor, clock }) {
    const queue = input.queue ?? DEFAULT_QUEUE;
    await ensureQueue(tx, queue);
    const now = clock.now();
    const [row] = await tx
      .insert(tasks)
      .values({
        queue,
        title: input.title,
        description: input.description ?? "",
        payload: input.payload ?? {},
        priority: input.priority ?? 0,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await appendEvents(tx, clock, [{
      taskId: row!.id, queue, type: "created", actorId: actor.id,
      payload: {
        version: row!.version, status: row!.status, title: row!.title, description: row!.description,
        priority: row!.priority, payload: row!.payload,
      },
    }]);
    return ok(toTask(row!, null));
  },
});
