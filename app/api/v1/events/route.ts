import { endpoints } from "@/lib/http/endpoints";
import { otherMethods } from "@/lib/http/routes";
import { errorResponse } from "@/lib/http/errors";
import { handle } from "@/lib/http/handler";
import { getHub } from "@/lib/realtime";
import { compareCursors, parseCursor } from "@/lib/realtime/cursor";
import { currentPosition } from "@/lib/realtime/feed";
import { openEventStream } from "@/lib/realtime/open-stream";

// A reconnecting EventSource keeps its original URL, so Last-Event-ID wins over ?after=.
export const GET = handle(endpoints.events, async ({ request, query, db, principal }) => {
  const header = request.headers.get("last-event-id");
  const raw = header ?? query.after;
  const after = raw === undefined ? null : parseCursor(raw);
  if (raw !== undefined && !after) {
    return errorResponse({ code: "invalid_request", message: "Last-Event-ID must be a cursor from an event's id: field", field: "Last-Event-ID" });
  }
  // Every cursor this server hands out is at or behind the feed's position now; one ahead
  // of it (made up, or from another database) would get a stream that never says anything.
  if (after && compareCursors(after, await currentPosition(db)) > 0) {
    return errorResponse({ code: "invalid_request", message: "Last-Event-ID is ahead of the event stream: not a cursor it handed out", field: "Last-Event-ID" });
  }
  const hub = await getHub();
  return openEventStream(hub, principal!, { queue: query.queue, taskId: query.task }, after, request);
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.events);
