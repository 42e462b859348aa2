import { endpoints } from "@/lib/http/endpoints";
import { otherMethods } from "@/lib/http/routes";
import { handle, respond } from "@/lib/http/handler";
import { claimBatch } from "@/lib/tasks";

export const POST = handle(endpoints.claimBatch, async ({ run, body }) =>
  respond(await run(claimBatch, body), (tasks) => ({ tasks })),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.claimBatch);
