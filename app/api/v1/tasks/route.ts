import { endpoints } from "@/lib/http/endpoints";
import { otherMethods } from "@/lib/http/routes";
import { handle, respond } from "@/lib/http/handler";
import { createTask } from "@/lib/tasks";
import { listTasks } from "@/lib/tasks/queries";

export const POST = handle(endpoints.createTask, async ({ run, body }) =>
  respond(await run(createTask, body), (task) => ({ task }), 201),
);

export const GET = handle(endpoints.listTasks, async ({ db, query, principal }) => {
  const page = await listTasks(db, query, principal!.actor);
  return Response.json({ tasks: page.items, nextCursor: page.nextCursor });
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.createTask, endpoints.listTasks);
