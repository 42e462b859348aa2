import { sql, type SQL } from "drizzle-orm";
import type { Tx } from "@/db/client";
import type { TaskRow } from "@/db/schema";
import type { Clock } from "../core/clock";
import { appendEvents, type NewEvent } from "../core/events";
import { lapseEvent } from "../core/lapse";
import { CONTENT_COLUMNS, contentOf, rawToTaskRow } from "../core/task-row";
import type { ActorRef } from "../core/types";
import { executePrepared } from "@/db/hot-path";
import { instanceOf, lapseHandoff, startAttempt } from "../core/attempt";
import { effectsLeftUnknown } from "../effects/ledger";

export interface ClaimedRow {
  row: TaskRow;
  /** The lease had lapsed: this claim expired the previous attempt first. */
  reclaimed: boolean;
  previousOwnerId: string | null;
  /** The lapsed attempt had reported progress: the system wrote its hand-off note. */
  wroteHandoff: boolean;
  /** Comments may be unread for the new holder (task_state.unread_from; lib/tasks/holding/unread.ts). */
  unreadFrom: string | null;
}

const CANDIDATE_NAMES = ["id", "status", "owner_id", "needs_check", "side_effect_recorded", "priority", "created_at", "progress", "progress_at"];

/** Columns a candidate CTE must select, for claimRows. */
export const CANDIDATE_COLUMNS = sql.raw(CANDIDATE_NAMES.join(", "));

/**
 * The same columns named by their table, for a walk that finds its tasks in a set (task_queued,
 * task_held) and locks them on task_state, which is the record: what made a task a candidate
 * is checked again there, inside recheck() (core/transition.ts), so a row locked after a
 * concurrent write is rechecked against its new version (EvalPlanQual rechecks the locked
 * table's row, not the set's).
 */
export const candidateColumnsOf = (table: string) => sql.raw(CANDIDATE_NAMES.map((c) => `${table}.${c}`).join(", "));

type ClaimOptions = { actor: ActorRef; leaseSeconds?: number; start?: boolean; instance?: string };

/**
 * The one conditional write of every claim. `candidates` is a MATERIALIZED CTE body that
 * has already locked its rows (FOR UPDATE); the UPDATE joins it by id — never
 * `WHERE id IN (subquery … LIMIT … FOR UPDATE SKIP LOCKED)`, which the planner may re-run
 * and so lock and update more rows than the limit (PostgreSQL bug #15715).
 *
 * A candidate that was still held had a lapsed lease: the same UPDATE expires it (version
 * + 1, needs_check if that attempt recorded a side effect) and claims it (version + 1),
 * started when asked and no check is needed: one act, one version, one event (docs/contract.md).
 */
export async function claimRows(tx: Tx, clock: Clock, candidates: SQL, options: ClaimOptions): Promise<ClaimedRow[]> {
  const rows = await executePrepared<Record<string, unknown>>(tx, sql`
    WITH candidates AS MATERIALIZED (${candidates}),
    decided AS (${decided(options)}),
    claimed AS (${claimUpdate(clock, options)}),
    ${claimedSets(true)}
    SELECT claimed.*, ${CONTENT_COLUMNS} FROM claimed ${contentOf("claimed")}`);
  return claimedFrom(tx, clock, rows, options);
}

/**
 * claimRows behind a gate: `gate`, a condition evaluated once, before the walk; a shut gate
 * walks nothing and locks nothing (a one-time filter above the candidates). The answer says
 * whether it opened, also when nothing was claimed, so a caller can take its longer way in
 * the same transaction without having paid a statement to ask first. Its candidates are queued
 * tasks only (the plain queue's walk: a lapsed lease shuts the gate), so its statement updates
 * no held row.
 */
export async function claimRowsGated(
  tx: Tx, clock: Clock, gate: SQL, candidates: SQL, options: ClaimOptions,
  /** Settled before the claim's events are appended, so the events of what it waits for come first. */
  after?: Promise<unknown>,
): Promise<{ open: boolean; claimed: ClaimedRow[] }> {
  const rows = await executePrepared<Record<string, unknown>>(tx, sql`
    WITH gate AS MATERIALIZED (SELECT ${gate} AS open),
    candidates AS MATERIALIZED (SELECT * FROM (${candidates}) walked WHERE (SELECT open FROM gate)),
    decided AS (${decided(options)}),
    claimed AS (${claimUpdate(clock, options)}),
    ${claimedSets(false)}
    SELECT gate.open AS gate_open, claimed.*, ${CONTENT_COLUMNS}
    FROM gate LEFT JOIN claimed ON true ${contentOf("claimed")}`);
  await after;
  const open = rows[0]?.gate_open === true;
  const claimed = rows.filter((raw) => raw.id !== null);
  if (claimed.some((raw) => raw.previous_status !== "queued")) throw new Error("a gated claim took a held task: its held row was not updated");
  return { open, claimed: await claimedFrom(tx, clock, claimed, options) };
}

/**
 * The claim writes its tasks' set rows in its own statement (its UPDATE bumps sets_mark, so the
 * set triggers leave these rows alone, migration 0030): ~30 µs a task here against ~80–100
 * through the triggers (CHANGELOG.md, "design q, step 3"). A task claimed from the
 * queue leaves the claimable set and enters the held set, its lease beside it (task_lease,
 * migration 0034); a lapsed lease reclaimed keeps both rows, with the new lease, and the new
 * owner where it changed. (Not one INSERT … ON CONFLICT: its speculative insertion writes one
 * WAL record more a claim.) A claim that takes no lapsed lease leaves out those updates:
 * planned as a hash join, such an update read task_held up to its first live row even when it
 * had nothing to update, and under the loop's churn that is most of the table's pages.
 */
const claimedSets = (reclaiming: boolean) => sql.raw(`
    left_queued AS (DELETE FROM task_queued r USING claimed WHERE r.id = claimed.id AND claimed.previous_status = 'queued'),
    now_held AS (
      INSERT INTO task_held (id, queue, priority, created_at, owner_id)
      SELECT id, queue, priority, created_at, owner_id FROM claimed WHERE previous_status = 'queued'
    ),
    now_leased AS (
      INSERT INTO task_lease (id, queue, lease_until, attempt_limited)
      SELECT id, queue, lease_until, attempt_limited FROM claimed WHERE previous_status = 'queued'
    )${reclaiming ? `,
    still_held AS (
      UPDATE task_held h SET owner_id = claimed.owner_id
      FROM claimed WHERE h.id = claimed.id AND claimed.previous_status <> 'queued' AND h.owner_id <> claimed.owner_id
    ),
    still_leased AS (
      UPDATE task_lease l SET lease_until = claimed.lease_until, attempt_limited = claimed.attempt_limited
      FROM claimed WHERE l.id = claimed.id AND claimed.previous_status <> 'queued'
    )` : ""}`);

/** What the claim decides for each candidate before it writes: the `decided` CTE's body. */
function decided(options: ClaimOptions): SQL {
  return sql`
      SELECT c.id,
             c.status AS previous_status,
             c.owner_id AS previous_owner_id,
             -- c, not t: only the locked candidate row is current; t here is the statement's
             -- snapshot, which may predate a release that set needs_check (same status).
             c.needs_check OR (c.status <> 'queued' AND c.side_effect_recorded) AS needs_check,
             coalesce(${options.leaseSeconds ?? null}::int, q.lease_seconds) AS lease_seconds,
             -- The lapsed attempt's progress, for the system's hand-off note (none from a queued task).
             c.progress, CASE WHEN c.status <> 'queued' THEN c.progress_at END AS progress_at,
             -- The lapsed attempt recorded an effect: its open intents become unknown (the ledger).
             c.status <> 'queued' AND c.side_effect_recorded AS lapsed_effects
      FROM candidates c
      JOIN task_state t ON t.id = c.id
      JOIN queues q ON q.name = t.queue`;
}

/** The claim's UPDATE of the `decided` candidates. */
function claimUpdate(clock: Clock, options: ClaimOptions): SQL {
  const start = options.start ?? false;
  return sql`
    UPDATE task_state t SET
      status = CASE WHEN ${start}::boolean AND NOT d.needs_check THEN 'started' ELSE 'claimed' END::task_status,
      owner_id = ${options.actor.id}::uuid,
      lease_until = ${clock.now()} + make_interval(secs => d.lease_seconds),
      lease_seconds = d.lease_seconds,
      needs_check = d.needs_check,
      side_effect_recorded = false,
      unknown_effects = t.unknown_effects + t.intended_effects,
      intended_effects = 0,
      not_before = NULL, -- it was due: once claimed, a task waits for nothing until it fails again
      ${startAttempt(clock.now())},
      ${lapseHandoff("d", clock.now())},
      version = t.version + CASE WHEN d.previous_status <> 'queued' THEN 2 ELSE 1 END,
      updated_at = ${clock.now()},
      sets_mark = t.sets_mark + 1 -- its set rows are written beside it (claimedSets)
    FROM decided d
    WHERE t.id = d.id
    RETURNING t.*, d.previous_status, d.previous_owner_id, d.progress_at IS NOT NULL AS wrote_handoff, d.lapsed_effects`;
}

/** The claimed rows in claim order, their lapsed attempts' effects settled, their events appended. */
async function claimedFrom(tx: Tx, clock: Clock, rows: Record<string, unknown>[], options: ClaimOptions): Promise<ClaimedRow[]> {
  const claimed = rows.map((raw) => ({
    row: rawToTaskRow(raw),
    reclaimed: raw.previous_status !== "queued",
    previousOwnerId: (raw.previous_owner_id as string | null) ?? null,
    wroteHandoff: Boolean(raw.wrote_handoff),
    unreadFrom: raw.unread_from === null || raw.unread_from === undefined ? null : String(raw.unread_from),
  }));
  // Keep the claim order stable (and the event ids with it): best candidate first.
  claimed.sort(
    (a, b) =>
      b.row.priority - a.row.priority ||
      a.row.createdAt.getTime() - b.row.createdAt.getTime() ||
      Number(a.row.id - b.row.id),
  );
  // Open intents of lapsed attempts turn unknown here, in the claim's transaction; their facts follow the claims'.
  const lapsedEffects = rows.filter((raw) => raw.lapsed_effects === true).map((raw) => rawToTaskRow(raw));
  const unknown = lapsedEffects.length > 0 ? await effectsLeftUnknown(tx, lapsedEffects) : [];
  await appendEvents(tx, clock, [...claimed.flatMap((c) => claimEvents(c, options.actor, options.instance)), ...unknown]);
  return claimed;
}

function claimEvents({ row, reclaimed, previousOwnerId, wroteHandoff }: ClaimedRow, actor: ActorRef, instance?: string): NewEvent[] {
  const started = row.status === "started";
  // The UPDATE made up to two transitions at once: the lapse and the claim (with its start, one act).
  let version = row.version - 1 - (reclaimed ? 1 : 0);
  const by = { taskId: row.id, queue: row.queue, actorId: actor.id };
  const events: NewEvent[] = [];
  if (reclaimed) events.push(lapseEvent(row, { version: ++version, previousOwnerId, wroteHandoff }));
  events.push({
    ...by, type: "claimed",
    payload: {
      version: ++version, status: started ? "started" : "claimed", leaseUntil: row.leaseUntil?.toISOString(),
      leaseSeconds: row.leaseSeconds, ...(started ? { started: true as const } : {}), ...instanceOf(instance),
    },
  });
  return events;
}
