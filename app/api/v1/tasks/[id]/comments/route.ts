import { endpoints } from "@/lib/http/endpoints";
import { handle, respond } from "@/lib/http/handler";
import { otherMethods } from "@/lib/http/routes";
import { addComment } from "@/lib/tasks";

export const POST = handle(endpoints.addComment, async ({ run, body, params }) =>
  respond(await run(addComment, { ...body, taskId: params.id }), (event) => ({ event }), 201),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.addComment);
