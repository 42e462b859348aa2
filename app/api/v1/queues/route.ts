import { endpoints } from "@/lib/http/endpoints";
import { otherMethods } from "@/lib/http/routes";
import { handle, respond } from "@/lib/http/handler";
import { createQueue, listQueues, readQueueSummary } from "@/lib/tasks";
import { COUNT_CAP } from "@/lib/tasks/counts";

// Supervisor tokens only (the endpoints' roles): queues are made on purpose, here or on /queues.

export const GET = handle(endpoints.listQueues, async ({ db }) =>
  Response.json({ queues: await listQueues(db), cap: COUNT_CAP }, { headers: { "Cache-Control": "no-store" } }),
);

export const POST = handle(endpoints.createQueue, async ({ run, body, db }) => {
  const made = await run(createQueue, body);
  if (!made.ok) return respond(made, () => null);
  return respond({ ok: true, value: (await readQueueSummary(db, made.value.name))! }, (queue) => ({ queue }), 201);
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.listQueues, endpoints.createQueue);
