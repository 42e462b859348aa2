import { z } from "zod";
import { queueName, taskId } from "@/lib/tasks/model";
import { parseCursor } from "./cursor";

export const streamCursor = z.string().refine((value) => parseCursor(value) !== null, "must be a cursor the stream sent (the id: line of one of its events)");

export const eventStreamQuery = z.strictObject({
  queue: queueName.optional(),
  task: taskId.optional(),
  after: streamCursor.optional(),
});
