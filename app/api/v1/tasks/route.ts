import { endpoints } from "@/lib/http/endpoints";
import { otherMethods } from "@/lib/http/routes";
import { handle, respond } from "@/lib/http/handler";
import { createTaskOnce } from "@/lib/tasks";
import { listTasks } from "@/lib/tasks/queries";

export const POST = handle(endpoints.createTask, async ({ run, body }) => {
  const result = await run(createTaskOnce, body);
  // An idempotent retry answers 200 with the task the first create made (Stripe's rule).
  return respond(result, ({ task }) => ({ task }), result.ok && !result.value.created ? 200 : 201);
});

export const GET = handle(endpoints.listTasks, async ({ db, query, principal }) => {
  const page = await listTasks(db, query, principal!.actor);
  return Response.json({ tasks: page.items, nextCursor: page.nextCursor });
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.createTask, endpoints.listTasks);
