import type { TaskChanges } from "@/lib/client";
import { LIMITS } from "@/lib/limits";
import { EDITABLE, editsAnyTask, personStanding } from "@/lib/tasks/model";
import type { EventView, TaskView, Viewer } from "./wire";

// The task page's edit form, in plain functions: who is offered it, what a filled-in form
// asks the server to change, and the sentence a conflicting edit gets.

/** The API's limits (lib/tasks/core/schemas.ts), checked here to say it in words first. */
const TITLE_MAX = LIMITS.title;
const DESCRIPTION_MAX = LIMITS.description;
const PRIORITY_LIMIT = LIMITS.priority.max;

/** Only a task nobody holds and nobody finished can be edited (the machine's EDITABLE, docs/engine.md). */
export const isEditable = (task: TaskView) => EDITABLE.includes(task.status);

/**
 * Whether to offer the viewer the edit form: a supervisor, the task's creator or its last
 * holder — the engine's rule (lib/tasks/authoring/edit.ts), read from the history the page shows.
 * The server decides either way; this only spares a form that would be refused.
 */
export function mayEdit(task: TaskView, viewer: Viewer, history: EventView[]): boolean {
  if (!isEditable(task)) return false;
  if (editsAnyTask(personStanding(viewer.role))) return true;
  const creator = history.find((e) => e.type === "created")?.actor.id;
  const lastHolder = history.findLast((e) => e.type === "claimed")?.actor.id;
  return viewer.actorId === creator || viewer.actorId === lastHolder;
}

/**
 * Whether the viewer may change the task's terms (its queue, not-before time, reservations,
 * budget), given that they may edit it: a supervisor always; anyone else only before its
 * first claim — the engine's rule (TERMS in lib/tasks/authoring/edit.ts).
 */
export const mayChangeTerms = (task: TaskView, viewer: Viewer) => editsAnyTask(personStanding(viewer.role)) || task.attempt === 0;

export interface EditDraft {
  title: string;
  description: string;
  priority: string;
  payload: string;
  queue: string;
}

export const draftOf = (task: TaskView): EditDraft => ({
  queue: task.queue,
  title: task.title,
  description: task.description,
  priority: String(task.priority),
  payload: JSON.stringify(task.payload ?? {}, null, 2),
});

/** JSON with sorted keys, so an untouched payload is not sent as a change. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v);

/**
 * The changes the form asks for against `task`, or a sentence for every field to fix, all
 * at once (issue 27 item 10: a person fixes them in one pass, not one refusal at a time).
 */
export function readEdit(draft: EditDraft, task: TaskView): { changes: TaskChanges } | { problems: Partial<Record<keyof EditDraft, string>> } {
  const problems: Partial<Record<keyof EditDraft, string>> = {};
  const title = draft.title.trim();
  if (!title) problems.title = "The title can't be empty.";
  else if (title.length > TITLE_MAX) problems.title = `The title is ${title.length} characters; at most ${TITLE_MAX} fit.`;
  if (draft.description.length > DESCRIPTION_MAX) {
    problems.description = `The description is ${draft.description.length.toLocaleString("en")} characters; at most ${DESCRIPTION_MAX.toLocaleString("en")} fit.`;
  }
  const priority = Number(draft.priority.trim());
  if (draft.priority.trim() === "" || !Number.isInteger(priority) || Math.abs(priority) > PRIORITY_LIMIT) {
    problems.priority = `The priority must be a whole number from -${PRIORITY_LIMIT} to ${PRIORITY_LIMIT}.`;
  }
  let payload: unknown;
  try {
    payload = draft.payload.trim() === "" ? {} : JSON.parse(draft.payload);
    if (!isJsonObject(payload)) problems.payload = `The payload must be a JSON object, in braces: {"site": 7}.`;
  } catch (error) {
    const why = error instanceof SyntaxError ? error.message : "it could not be read";
    problems.payload = `The payload isn't valid JSON (${why}). Write a JSON object such as {"site": 7}.`;
  }
  if (Object.keys(problems).length > 0) return { problems };
  const changes: TaskChanges = {};
  if (title !== task.title) changes.title = title;
  if (draft.description !== task.description) changes.description = draft.description;
  if (priority !== task.priority) changes.priority = priority;
  if (canonical(payload) !== canonical(task.payload)) changes.payload = payload as TaskChanges["payload"];
  if (draft.queue && draft.queue !== task.queue) changes.queue = draft.queue;
  return { changes };
}

/** A field of the form the person and another editor may both have changed. */
export type EditField = keyof EditDraft;
const EDIT_FIELDS: readonly EditField[] = ["title", "description", "priority", "payload", "queue"];
export const fieldWords: Record<EditField, string> = { title: "title", description: "description", priority: "priority", payload: "payload", queue: "queue" };

/** Whether two drafts of one field ask for the same value (as readEdit would send it). */
function sameValue(field: EditField, a: string, b: string): boolean {
  if (field === "description") return a === b;
  if (a.trim() === b.trim()) return true;
  if (field === "priority") return a.trim() !== "" && b.trim() !== "" && Number(a) === Number(b);
  if (field === "payload") {
    try {
      return canonical(a.trim() === "" ? {} : JSON.parse(a)) === canonical(b.trim() === "" ? {} : JSON.parse(b));
    } catch {
      return false;
    }
  }
  return false;
}

/** A field both changed to different values: theirs is the task's now, mine is in the form. */
export interface EditClash {
  field: EditField;
  theirs: string;
}

/**
 * After a version conflict, a three-way merge of the person's form with the task as it is
 * now, against the task as the form last knew it (`origin`): a field the person did not
 * change takes the server's value (so saving again cannot undo someone else's change); a
 * field only they changed keeps theirs; a field both changed to different values keeps
 * the person's value in the form and is returned as a clash, for them to decide.
 */
export function mergeDraft(draft: EditDraft, origin: TaskView, current: TaskView): { draft: EditDraft; clashes: EditClash[] } {
  const before = draftOf(origin);
  const now = draftOf(current);
  const merged = { ...draft };
  const clashes: EditClash[] = [];
  for (const field of EDIT_FIELDS) {
    const mine = !sameValue(field, draft[field], before[field]);
    const theirs = !sameValue(field, now[field], before[field]);
    if (!mine) merged[field] = now[field];
    else if (theirs && !sameValue(field, draft[field], now[field])) clashes.push({ field, theirs: now[field] });
  }
  return { draft: merged, clashes };
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/** Who last changed the task, from its history: the newest event that is not a comment. */
export function lastChangedBy(history: EventView[]): string | null {
  return history.findLast((e) => e.type !== "commented" && e.type !== "claim_rejected")?.actor.name ?? null;
}

const quote = (text: string, max = 80) => `“${text.length > max ? `${text.slice(0, max - 1)}…` : text}”`;

/**
 * The 409 as a sentence with the values as they are now: "Amal changed this task while you
 * were editing: it is now titled “…”, priority 3, queued. …"
 */
export function conflictSentence(current: TaskView, by: string | null): string {
  const now = [`titled ${quote(current.title)}`, `priority ${current.priority}`, current.status].join(", ");
  const what = current.status === "queued" || current.status === "escalated"
    ? "Your changes are still in the form, and what you did not change now shows theirs: save again to apply yours."
    : `It can no longer be edited (it is ${current.status}).`;
  return `${by ?? "Someone"} changed this task while you were editing: it is now ${now}. ${what}`;
}
