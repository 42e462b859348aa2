import { endpoints } from "@/lib/http/endpoints";
import { otherMethods } from "@/lib/http/routes";
import { handle } from "@/lib/http/handler";
import { countTasks } from "@/lib/tasks/counts";

export const GET = handle(endpoints.countTasks, async ({ db, query, principal }) => {
  return Response.json(await countTasks(db, query, principal!.actor));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.countTasks);
