// What people wrote, under a history row: a comment's text, an edit's changes, a
// supervisor's reason. The row's own sentence is timeline.tsx's `what`.

import type { EditedPayload, FieldChange as Change } from "@/lib/tasks/model";
import type { EventView } from "./wire";

const FIELD_NAMES: Record<string, string> = { title: "title", description: "description", priority: "priority", payload: "payload" };
const ORDER = Object.keys(FIELD_NAMES);

/** The changed fields in the form's order (jsonb keeps its own key order, shortest first). */
const changesOf = (payload: EditedPayload) =>
  Object.entries(payload.changes ?? {}).sort(([a], [b]) => ORDER.indexOf(a) - ORDER.indexOf(b));

/** "edited the title and priority" */
export function editedSummary(payload: EditedPayload): string {
  const fields = changesOf(payload).map(([f]) => FIELD_NAMES[f] ?? f);
  if (fields.length === 0) return "edited the task";
  const list = fields.length === 1 ? fields[0] : `${fields.slice(0, -1).join(", ")} and ${fields.at(-1)}`;
  return `edited the ${list}`;
}

const short = (value: unknown, max = 120) => {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
};

function ChangeLine({ field, change }: { field: string; change: Change }) {
  const from = change.fromOmitted ? "(a large payload)" : field === "priority" ? String(change.from) : `“${short(change.from ?? "")}”`;
  const to = field === "priority" ? String(change.to) : `“${short(change.to)}”`;
  return (
    <li>
      <span className="font-medium">{FIELD_NAMES[field] ?? field}</span>: <del className="text-slate-600">{from}</del> → <ins className="no-underline">{to}</ins>
    </li>
  );
}

/** The body of a history row, by event type; null where the sentence says it all. */
export function RowNote({ event }: { event: EventView }) {
  if (event.type === "commented" && typeof event.payload.body === "string") {
    return (
      <blockquote data-testid="comment-body" className="mt-1 rounded-md border-l-4 border-blue-300 bg-blue-50 px-2 py-1 text-sm whitespace-pre-wrap text-slate-900">
        {event.payload.body}
        {event.payload.pending ? <span className="ml-2 text-xs text-blue-800">sending…</span> : null}
      </blockquote>
    );
  }
  if (event.type === "edited") {
    const changes = changesOf(event.payload);
    return (
      <ul data-testid="edit-changes" className="mt-0.5 space-y-0.5 text-sm wrap-anywhere text-slate-800">
        {changes.map(([field, change]) => <ChangeLine key={field} field={field} change={change} />)}
      </ul>
    );
  }
  const decided = event.type === "requeued" || event.type === "resolved" || event.type === "cancelled";
  if (decided && typeof event.payload.reason === "string" && event.payload.reason) {
    return <p data-testid="event-reason" className="mt-0.5 text-sm text-slate-800">↪ note: {event.payload.reason}</p>;
  }
  return null;
}
