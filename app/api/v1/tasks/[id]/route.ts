import { errorResponse } from "@/lib/http/errors";
import { endpoints } from "@/lib/http/endpoints";
import { otherMethods } from "@/lib/http/routes";
import { handle } from "@/lib/http/handler";
import { validationError } from "@/lib/tasks/engine";
import { loadTask } from "@/lib/tasks";
import { taskPath } from "@/lib/tasks/schemas";

export const GET = handle(endpoints.getTask, async ({ db, params }) => {
  const id = taskPath.safeParse(params);
  if (!id.success) return errorResponse(validationError(id.error));
  const task = await loadTask(db, id.data.id);
  if (!task) return errorResponse({ code: "not_found", message: `Task ${id.data.id} does not exist` });
  return Response.json({ task });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.getTask);
