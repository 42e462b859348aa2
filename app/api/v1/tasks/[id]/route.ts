import { errorResponse } from "@/lib/http/errors";
import { endpoints } from "@/lib/http/endpoints";
import { otherMethods } from "@/lib/http/routes";
import { handle, respond } from "@/lib/http/handler";
import { validationError } from "@/lib/tasks/engine";
import { editTask, loadTask } from "@/lib/tasks";
import { taskPath } from "@/lib/tasks/schemas";

export const GET = handle(endpoints.getTask, async ({ db, params }) => {
  const id = taskPath.safeParse(params);
  if (!id.success) return errorResponse(validationError(id.error));
  const task = await loadTask(db, id.data.id);
  if (!task) return errorResponse({ code: "not_found", message: `Task ${id.data.id} does not exist` });
  return Response.json({ task });
});

/** A supervisor's token edits any task; an agent's, the tasks it created or held last (the engine's rule, docs/api.md). */
export const PATCH = handle(endpoints.editTask, async ({ run, body, params }) =>
  respond(await run(editTask, { ...body, taskId: params.id }), (task) => ({ task })),
);

export const { POST, PUT, DELETE, OPTIONS } = otherMethods(endpoints.getTask, endpoints.editTask);
