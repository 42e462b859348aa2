import { z } from "zod";
import { eventType } from "@/db/schema/enums";
import { LIMITS } from "@/lib/limits";
import { queueName, text } from "@/lib/tasks/model";

// The webhooks' inputs, pure (zod only) so the registry and the typed client import them.

const eventName = z.union([z.enum(eventType.enumValues), z.literal("*")]);

export const createWebhookInput = z.strictObject({
  url: text(LIMITS.webhookUrl, 1),
  events: z.array(eventName).min(1, "must name at least one event type (or \"*\")").max(LIMITS.webhookFilter),
  queues: z.array(queueName).min(1).max(LIMITS.webhookFilter).optional(),
  description: text(LIMITS.webhookDescription).optional(),
});
export const webhookIdInput = z.strictObject({ id: z.uuid("must be a webhook id") });
export const listDeliveriesQuery = z.strictObject({
  before: z.coerce.bigint().positive().optional().meta({ description: "A delivery id: the page after it (nextCursor)" }),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});
export const listDeliveriesInput = listDeliveriesQuery.extend({ id: z.uuid("must be a webhook id") });
