import { sql, type SQL } from "drizzle-orm";
import { SYSTEM_ACTOR_ID } from "./events";
import type { HandoffInput } from "./schemas";
import type { ActorRef } from "./types";

// What one attempt leaves on the task row beyond its lease: when it was claimed (the
// ceiling counts from there), its last progress, and the hand-off note it ends with.
// Kept in SQL fragments here so claim, heartbeat, release, fail and every kind of lapse
// write them the same way — and fold.ts replays them from the events.

export const SYSTEM_BY: ActorRef = { id: SYSTEM_ACTOR_ID, name: "system", kind: "system" };

/**
 * The SET items of a new attempt (every claim): the next attempt number — a holding's number
 * is never reused, whatever ended the one before (docs/fences.md) — and a fresh ceiling and
 * progress. The hand-off stays: the new owner reads it.
 */
export const startAttempt = (now: SQL) => sql`
  attempt = t.attempt + 1, claimed_at = ${now}, attempt_limited = false, progress = NULL, progress_at = NULL, renewals_without_progress = 0`;

/** The SET items that clear an attempt when it ends (release, fail, lapse). */
export const clearAttempt = sql`claimed_at = NULL, attempt_limited = false, progress = NULL, progress_at = NULL, renewals_without_progress = 0`;

/** The stored note (the row's `handoff` and the event's payload.handoff): who wrote it, without `at`. */
export function handoffNote(input: HandoffInput, by: ActorRef) {
  return { summary: input.summary, next: input.next ?? null, artifacts: input.artifacts ?? [], by };
}
export type HandoffNote = ReturnType<typeof handoffNote>;

/** SET items writing a caller's note, or nothing when the call brought none. */
export const setHandoff = (note: HandoffNote | null, now: SQL) =>
  note ? sql`, handoff = ${JSON.stringify(note)}::jsonb, handoff_at = ${now}` : sql``;

/** The longest summary a note may carry; a system note from a long progress is cut to it. */
export const SUMMARY_MAX = 2000;

/**
 * The note the system writes when an attempt that reported progress lapses: its last
 * progress as the summary (a string as is, other JSON as its text). `src` is the alias of
 * the row as it was before the lapse.
 */
export const lapseHandoff = (src: string, now: SQL) => {
  const p = sql.raw(src);
  return sql`
  handoff = CASE WHEN ${p}.progress_at IS NULL THEN t.handoff ELSE jsonb_build_object(
    'summary', left(CASE jsonb_typeof(${p}.progress) WHEN 'string' THEN ${p}.progress #>> '{}' ELSE ${p}.progress::text END, ${SUMMARY_MAX}),
    'next', NULL, 'artifacts', '[]'::jsonb, 'by', ${JSON.stringify(SYSTEM_BY)}::jsonb) END,
  handoff_at = CASE WHEN ${p}.progress_at IS NULL THEN t.handoff_at ELSE ${now} END`;
};

/** The Claimboard-Instance of the caller (host:pid, …) for the event payload, when it sent one. */
export const instanceOf = (instance: string | undefined) => (instance ? { instance } : {});
