// What people wrote, under a history row: a comment's text, an edit's changes, a
// supervisor's reason. The row's own sentence is timeline.tsx's `what`.

type Payload = Record<string, unknown>;
type Change = { from?: unknown; to: unknown; fromOmitted?: true };

const FIELD_NAMES: Record<string, string> = { title: "title", description: "description", priority: "priority", payload: "payload" };
const ORDER = Object.keys(FIELD_NAMES);

/** The changed fields in the form's order (jsonb keeps its own key order, shortest first). */
const changesOf = (payload: Payload) =>
  Object.entries((payload.changes ?? {}) as Record<string, Change>).sort(([a], [b]) => ORDER.indexOf(a) - ORDER.indexOf(b));

/** "edited the title and priority" */
export function editedSummary(payload: Payload): string {
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
export function RowNote({ type, payload }: { type: string; payload: Payload }) {
  if (type === "commented" && typeof payload.body === "string") {
    return (
      <blockquote data-testid="comment-body" className="mt-1 rounded-md border-l-4 border-blue-300 bg-blue-50 px-2 py-1 text-sm whitespace-pre-wrap text-slate-900">
        {payload.body}
        {payload.pending ? <span className="ml-2 text-xs text-blue-800">sending…</span> : null}
      </blockquote>
    );
  }
  if (type === "edited") {
    const changes = changesOf(payload);
    return (
      <ul data-testid="edit-changes" className="mt-0.5 space-y-0.5 text-sm break-words text-slate-800">
        {changes.map(([field, change]) => <ChangeLine key={field} field={field} change={change} />)}
      </ul>
    );
  }
  if ((type === "requeued" || type === "resolved" || type === "cancelled") && typeof payload.reason === "string" && payload.reason) {
    return <p data-testid="event-reason" className="mt-0.5 text-sm text-slate-800">↪ note: {payload.reason}</p>;
  }
  return null;
}
