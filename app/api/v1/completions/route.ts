import { endpoints } from "@/lib/http/endpoints";
import { otherMethods } from "@/lib/http/routes";
import { handle, respond } from "@/lib/http/handler";
import { completeMany } from "@/lib/tasks";

export const POST = handle(endpoints.completions, async ({ run, body }) =>
  respond(await run(completeMany, body), (results) => ({ results })),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.completions);
