import { z } from "zod";
import { rowId, taskId, version } from "../core/schemas";

/** POST /tasks/{id}/ack {version, eventId} (docs/leases.md): the body; the task comes from the path. */
export const ackBody = z.strictObject({
  version,
  eventId: rowId("a comment's event id").meta({ description: "The newest comment read (an `unread` item's eventId): every comment up to it is acknowledged" }),
});
export const ackInput = ackBody.extend({ taskId });
