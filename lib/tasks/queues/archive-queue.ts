import { and, count, eq, inArray } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { queues, tasks, type Queue } from "@/db/schema";
import type { Clock } from "../core/clock";
import { defineOperation } from "../core/engine";
import { appendEvents } from "../core/events";
import { DEFAULT_QUEUE, lockQueue } from "./queues";
import { queueInput } from "../core/schemas";
import { fail, ok, type ActorRef, type Result } from "../core/types";
import { SUPERVISORS } from "../core/standing";

// Archive is a switch for new work, not a delete: an archived queue is hidden from the
// pickers and refuses creates and claims (400 naming it "archived"), while every task and
// event in it stays, and what is held there can still be started, renewed, completed,
// failed or released. Queued tasks wait, unclaimable, until the queue is restored or a
// supervisor cancels them. `default` is never archived: a create naming no queue lands there.

async function setArchived(tx: Tx, clock: Clock, actor: ActorRef, name: string, archive: boolean): Promise<Result<Queue>> {
  if (archive && name === DEFAULT_QUEUE) {
    return fail({ code: "invalid_request", field: "queue", message: `queue '${DEFAULT_QUEUE}' cannot be archived: a task created without a queue goes there` });
  }
  const locked = await lockQueue(tx, name);
  if (!locked.ok) return locked;
  if ((locked.value.archivedAt !== null) === archive) return ok(locked.value); // already so: nothing written
  const [queue] = await tx
    .update(queues)
    .set({ archivedAt: archive ? clock.now() : null, archivedBy: archive ? actor.id : null, updatedAt: clock.now() })
    .where(eq(queues.name, name))
    .returning();
  const [waiting] = await tx.select({ n: count() }).from(tasks)
    .where(and(eq(tasks.queue, name), inArray(tasks.status, ["queued", "claimed", "started", "in_review", "escalated"])));
  await appendEvents(tx, clock, [{
    taskId: null, queue: name, type: archive ? "archived" : "unarchived", actorId: actor.id,
    payload: { by: actor.name, openTasks: waiting?.n ?? 0 },
  }]);
  return ok(queue!);
}

/** Supervisor: archive a queue — no new tasks or claims there; its history and held work stay. */
export const archiveQueue = defineOperation({
  name: "archiveQueue",
  who: SUPERVISORS,
  input: queueInput,
  run: (tx, input, { actor, clock }) => setArchived(tx, clock, actor, input.queue, true),
});

/** Supervisor: restore an archived queue to the pickers and to new work. */
export const unarchiveQueue = defineOperation({
  name: "unarchiveQueue",
  who: SUPERVISORS,
  input: queueInput,
  run: (tx, input, { actor, clock }) => setArchived(tx, clock, actor, input.queue, false),
});
