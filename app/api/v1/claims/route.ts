import { endpoints } from "@/lib/http/endpoints";
import { handle, respond } from "@/lib/http/handler";
import { claimNext } from "@/lib/tasks";

export const POST = handle(endpoints.claimNext, async ({ run, body }) => {
  const result = await run(claimNext, body);
  if (result.ok && result.value === null) return new Response(null, { status: 204 });
  return respond(result, (task) => ({ task }));
});
