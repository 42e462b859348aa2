import { endpoints } from "@/lib/http/endpoints";
import { otherMethods } from "@/lib/http/routes";
import { handle, respond } from "@/lib/http/handler";
import { taskReadiness } from "@/lib/tasks";

export const GET = handle(endpoints.taskReadiness, async ({ run, params }) =>
  respond(await run(taskReadiness, { taskId: params.id }), (readiness) => readiness),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.taskReadiness);
