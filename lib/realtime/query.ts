import { z } from "zod";
import { queueName, taskId } from "@/lib/tasks/core/schemas";
import { parseCursor } from "./cursor";

export const streamCursor = z.string().refine((value) => parseCursor(value) !== null, "must be a cursor from an event's id: field");

export const eventStreamQuery = z.strictObject({
  queue: queueName.optional(),
  task: taskId.optional(),
  after: streamCursor.optional(),
});
