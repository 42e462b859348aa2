import { LocalTime } from "@/components/ui/local-time";
import type { EventsArchivedPayload } from "@/lib/tasks/model";
import type { EventView } from "./wire";

/**
 * Where a history begins when its first months were retired (`npm run cli -- events archive`):
 * the events_archived fact says how many events went, into which file, and the file's SHA-256,
 * so the page says so first instead of starting mid-story.
 */
export function ArchivedNote({ fact }: { fact: EventView }) {
  const p: Partial<EventsArchivedPayload> = (fact.type === "events_archived" && fact.payload) || {};
  return (
    <p data-testid="events-archived" className="rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm text-amber-950">
      {p.events ?? "?"} earlier event{p.events === 1 ? "" : "s"} (before {p.before ?? "?"}) archived to <code>{p.file ?? "?"}</code>{" "}
      by {p.by ?? fact.actor.name} on <LocalTime iso={fact.createdAt} withDate />
      <span className="block text-xs break-all text-amber-800">sha256 {p.sha256 ?? "?"}</span>
    </p>
  );
}
