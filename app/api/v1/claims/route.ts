import { endpoints } from "@/lib/http/endpoints";
import { otherMethods } from "@/lib/http/routes";
import { handle, respond } from "@/lib/http/handler";
import { claimNext } from "@/lib/tasks";

export const POST = handle(endpoints.claimNext, async ({ run, body }) => {
  const result = await run(claimNext, body);
  if (result.ok && result.value === null) return new Response(null, { status: 204 });
  return respond(result, (task) => ({ task }));
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.claimNext);
