import { and, eq } from "drizzle-orm";
import { queues, taskEvents, tasks } from "@/db/schema";
import { notFound } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { typedEvent } from "../core/event-payloads";
import { appendEvents } from "../core/events";
import type { TaskEvent } from "../reads/queries";
import { commentInput } from "../core/schemas";
import { fail, ok, type Result } from "../core/types";
import type { Standing } from "../core/standing";
import { markUnread } from "../holding/unread";

/** Who the queue setting `commenters` admits (in-process code that is no surface is not gated). */
const COMMENTERS: Record<"anyone" | "people" | "supervisors", readonly Standing[] | null> = {
  anyone: null,
  people: ["staff", "supervisor", "operator"],
  supervisors: ["supervisor", "operator"],
};

function commenterRefusal(queue: string, commenters: keyof typeof COMMENTERS, standing: Standing | undefined): Result<never> | null {
  const admitted = COMMENTERS[commenters];
  if (!admitted || standing === undefined || admitted.includes(standing)) return null;
  const who = commenters === "people" ? "people (and supervisor tokens)" : "supervisors";
  return fail({ code: "forbidden", message: `Only ${who} may comment on tasks of queue ${queue} (commenters: ${commenters})` });
}

/**
 * A comment on a task: one `commented` event, in any status — discussing a done task is
 * still useful. It changes no status, no version and no updated_at. On a task someone else
 * holds it is input the holder must read before done (docs/leases.md): it marks itself unread
 * there, the one case that locks the row; any other comment writes nothing to the task, so it
 * never waits for (or delays) a claim. Its payload carries no version, so replay
 * (lib/tasks/reads/fold.ts) passes over it as it does a lost claim.
 */
export const addComment = defineOperation({
  name: "addComment",
  makes: ["comment"],
  input: commentInput,
  async run(tx, input, { actor, clock, standing }) {
    const [task] = await tx
      .select({ id: tasks.id, queue: tasks.queue, commenters: queues.commenters })
      .from(tasks)
      .innerJoin(queues, eq(queues.name, tasks.queue))
      .where(eq(tasks.id, BigInt(input.taskId)));
    if (!task) return notFound(input.taskId);
    const refused = commenterRefusal(task.queue, task.commenters, standing);
    if (refused) return refused;
    const [id] = await appendEvents(tx, clock, [{
      taskId: task.id, queue: task.queue, type: "commented", actorId: actor.id, payload: { body: input.body },
    }]);
    await markUnread(tx, task.id, id!, actor.id);
    const [row] = await tx.select().from(taskEvents).where(and(eq(taskEvents.taskId, task.id), eq(taskEvents.id, id!)));
    const event: TaskEvent = typedEvent({
      id: row!.id.toString(), taskId: input.taskId, queue: row!.queue, type: row!.type,
      actor: { id: actor.id, name: actor.name, kind: actor.kind }, payload: row!.payload, createdAt: row!.createdAt,
    });
    return ok(event);
  },
});
