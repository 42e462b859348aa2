import { endpoints } from "@/lib/http/endpoints";
import { otherMethods } from "@/lib/http/routes";
import { handle, respond } from "@/lib/http/handler";
import { completeAndClaimNext } from "@/lib/tasks";

export const POST = handle(endpoints.completeTask, async ({ run, body, params }) =>
  respond(await run(completeAndClaimNext, { ...body, taskId: params.id }), (value) => value),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.completeTask);
