import { errorResponse } from "@/lib/http/errors";
import { endpoints } from "@/lib/http/endpoints";
import { otherMethods } from "@/lib/http/routes";
import { handle, respond } from "@/lib/http/handler";
import { readQueueSummary, updateQueue } from "@/lib/tasks";
import { validationError } from "@/lib/tasks/engine";
import { queuePath } from "@/lib/tasks/schemas";

/** Supervisor tokens only: settings, description, paused, archived — one transaction (lib/tasks/update-queue.ts). */
export const PATCH = handle(endpoints.updateQueue, async ({ run, body, params, db }) => {
  const path = queuePath.safeParse(params);
  if (!path.success) return errorResponse(validationError(path.error));
  const changed = await run(updateQueue, { ...body, queue: path.data.name });
  if (!changed.ok) return respond(changed, () => null);
  return respond({ ok: true, value: (await readQueueSummary(db, path.data.name))! }, (queue) => ({ queue }));
});

export const { GET, POST, PUT, DELETE, OPTIONS } = otherMethods(endpoints.updateQueue);
