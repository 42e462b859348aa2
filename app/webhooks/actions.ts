"use server";

import { guardedAction, operationAction } from "@/lib/auth/action";
import { ok } from "@/lib/tasks/model";
import { adoptWebhook, createWebhook, deleteWebhook, listDeliveries, listWebhooks } from "@/lib/webhooks/ops";
import { listDeliveriesInput } from "@/lib/webhooks/schemas";
import { z } from "zod";

// The /webhooks page's calls: the same operations and reads as the API (lib/webhooks/ops.ts).
export const createWebhookAction = operationAction("supervisor", createWebhook);
export const deleteWebhookAction = operationAction("supervisor", deleteWebhook);
export const adoptWebhookAction = operationAction("supervisor", adoptWebhook);
export const webhooksAction = guardedAction("supervisor", z.strictObject({}), async (_input, { db }) => ok(await listWebhooks(db)));
export const deliveriesAction = guardedAction("supervisor", listDeliveriesInput, async (input, { db }) => {
  const page = await listDeliveries(db, input);
  return page ? ok(page) : { ok: false as const, error: { code: "not_found" as const, message: `No webhook ${input.id}` } };
});
