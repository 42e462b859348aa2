import { endpoints } from "@/lib/http/endpoints";
import { errorResponse } from "@/lib/http/errors";
import { handle } from "@/lib/http/handler";
import { getHub } from "@/lib/realtime";
import { parseCursor } from "@/lib/realtime/cursor";
import { eventStream } from "@/lib/realtime/sse";

// A reconnecting EventSource keeps its original URL, so Last-Event-ID wins over ?after=.
export const GET = handle(endpoints.events, async ({ request, query }) => {
  const header = request.headers.get("last-event-id");
  const raw = header ?? query.after;
  const after = raw === undefined ? null : parseCursor(raw);
  if (raw !== undefined && !after) {
    return errorResponse({ code: "invalid_request", message: "Last-Event-ID must be a cursor from an event's id: field", field: "Last-Event-ID" });
  }
  const hub = await getHub();
  return eventStream(hub, { queue: query.queue, taskId: query.task }, after, request.signal);
});
