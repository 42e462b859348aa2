import { errorResponse } from "@/lib/http/errors";
import { endpoints } from "@/lib/http/endpoints";
import { otherMethods } from "@/lib/http/routes";
import { handle } from "@/lib/http/handler";
import { validationError } from "@/lib/tasks/engine";
import { loadTask } from "@/lib/tasks";
import { listTaskEvents } from "@/lib/tasks/queries";
import { taskPath } from "@/lib/tasks/schemas";

export const GET = handle(endpoints.listTaskEvents, async ({ db, params, query }) => {
  const id = taskPath.safeParse(params);
  if (!id.success) return errorResponse(validationError(id.error));
  if (!(await loadTask(db, id.data.id))) return errorResponse({ code: "not_found", message: `Task ${id.data.id} does not exist` });
  const page = await listTaskEvents(db, id.data.id, query);
  return Response.json({ events: page.items, nextCursor: page.nextCursor });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.listTaskEvents);
