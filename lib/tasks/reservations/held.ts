import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { Clock } from "../core/clock";
import { HELD, PARKED } from "../core/machine";
import { statusIn } from "../core/transition";
import { contentOf, parseTimestamp } from "../core/task-row";
import type { ActorRef } from "../core/types";
import type { Reservation } from "../core/reservation";

// Reservations (docs/contract.md#reservations) are not rows of their own: a task's `reserves` are
// held exactly while the task is held — claimed or started with a live lease — so they end
// with the holding, in the transaction that ends it, and a crashed holder's lapse frees
// them without anyone deleting anything. The tasks_reserving index holds only tasks that
// reserve, keyed on their reserving_status (migration 0032: the status of a task that reserves,
// null otherwise), so what is held is an index read of the holders, never a scan. The column
// is task_state's alone, so these reads name task_state, not the view `tasks`.

/**
 * Held now (`alias` a task_state row): claimed or started with a live lease (a lapsed lease
 * holds nothing), or parked on a question (awaiting_input: the owner keeps the task and its
 * lease waits, docs/questions.md). Only a task that reserves has a reserving_status.
 */
export const heldReserving = (alias: string, clock: Clock) =>
  sql`(${statusIn(PARKED, alias, "reserving_status")}
    OR (${statusIn(HELD, alias, "reserving_status")} AND ${sql.raw(alias)}.lease_until > ${clock.now()}))`;

/**
 * Every claim that may take reservations first takes this one transaction-scoped advisory
 * lock: the walk that follows reads with a snapshot taken after it, so it sees every
 * holding committed by a claimer before, and no two claimers can both find a resource
 * free. One key for every queue (a resource is not a queue's), taken before any row lock,
 * so it cannot deadlock with the walk's; claims of tasks that reserve nothing never take it.
 */
const RESERVATIONS_LOCK = sql.raw(`pg_advisory_xact_lock(hashtext('claimboard:reservations'))`);

export async function lockReservations(tx: Executor): Promise<void> {
  await tx.execute(sql`SELECT ${RESERVATIONS_LOCK}`);
}

/** For a targeted claim: takes the lock when the task reserves; true when it did. */
export async function lockReservationsOf(tx: Executor, taskId: string): Promise<boolean> {
  const rows = await tx.execute(sql`SELECT ${RESERVATIONS_LOCK} FROM tasks WHERE id = ${taskId}::bigint AND reserves IS NOT NULL`);
  return rows.length > 0;
}

/** Conflicting holdings of `candidate`'s reservations (a task alias in the query using it). */
const conflictsOf = (candidate: string, clock: Clock, select: SQL) => sql`
  SELECT ${select}
  FROM task_state h
  CROSS JOIN LATERAL jsonb_array_elements(h.reserves) hr
  CROSS JOIN LATERAL jsonb_array_elements(${sql.raw(candidate)}.reserves) cr
  WHERE ${heldReserving("h", clock)} AND h.id <> ${sql.raw(candidate)}.id
    AND (hr->>'mode' = 'exclusive' OR cr->>'mode' = 'exclusive')
    AND (reservation_covers(hr->>'resource', cr->>'resource') OR reservation_covers(cr->>'resource', hr->>'resource'))`;

/**
 * The claim walks' filter on the candidate rows (`task_state`). Under the lock, a task that
 * reserves is a candidate only while nothing held conflicts with it; without the lock
 * (the queue had no reserving task when its state was read) such a task is left for the
 * next claim. A task that reserves nothing is never joined to anything.
 */
export function reservationFilter(locked: boolean, clock: Clock): SQL {
  return locked
    ? sql`AND (task_state.reserves IS NULL OR NOT EXISTS (${conflictsOf("task_state", clock, sql`1`)}))`
    : sql`AND task_state.reserves IS NULL`;
}

export interface HeldConflict {
  resource: string;
  taskId: string;
  title: string;
  owner: string | null;
}

/** What holds the resources `taskId` reserves now (readiness `reserved`); empty when nothing does. */
export async function conflictingHoldings(db: Executor, clock: Clock, taskId: string): Promise<HeldConflict[]> {
  return db.execute<HeldConflict & Record<string, unknown>>(sql`
    SELECT DISTINCT x.resource, x.id::text AS "taskId", c.title, o.name AS owner
    FROM task_state candidate, LATERAL (${conflictsOf("candidate", clock, sql`h.id, h.owner_id, hr->>'resource' AS resource`)}) x
    ${contentOf("x")}
    LEFT JOIN actors o ON o.id = x.owner_id
    WHERE candidate.id = ${taskId}::bigint AND candidate.reserves IS NOT NULL
    ORDER BY "taskId", x.resource`);
}

/** A claimable task that waits on another holder's reservation: the board's "reserved by #N (who)". */
export interface ReservationWait {
  taskId: string;
  holders: HeldConflict[];
}

/** The most reservation waits the board reads at once (oldest tasks first). */
export const RESERVATION_WAITS_READ = 500;

/**
 * Every task a claim would take now but for a held reservation — queued, or held with its
 * lease lapsed (readiness's `reserved`, from the same conflict test as the claim walk and
 * `conflictingHoldings`) — with what holds each resource. An index read of the reserving tasks.
 */
export async function reservationWaits(db: Executor, clock: Clock, limit = RESERVATION_WAITS_READ): Promise<ReservationWait[]> {
  const rows = await db.execute<{ candidate: string } & HeldConflict & Record<string, unknown>>(sql`
    WITH candidates AS (
      SELECT candidate.* FROM task_state candidate
      WHERE candidate.reserving_status = 'queued'
         OR (${statusIn(HELD, "candidate", "reserving_status")} AND candidate.lease_until <= ${clock.now()})
      ORDER BY candidate.id LIMIT ${limit}
    )
    SELECT DISTINCT candidate.id::text AS candidate, x.resource, x.id::text AS "taskId", c.title, o.name AS owner
    FROM candidates candidate, LATERAL (${conflictsOf("candidate", clock, sql`h.id, h.owner_id, hr->>'resource' AS resource`)}) x
    ${contentOf("x")}
    LEFT JOIN actors o ON o.id = x.owner_id
    ORDER BY candidate, "taskId", x.resource`);
  const waits = new Map<string, HeldConflict[]>();
  for (const { candidate, resource, taskId, title, owner } of rows) {
    const holders = waits.get(candidate) ?? [];
    holders.push({ resource, taskId, title, owner });
    waits.set(candidate, holders);
  }
  return [...waits].map(([taskId, holders]) => ({ taskId, holders }));
}

export interface HeldReservation extends Reservation {
  taskId: string;
  title: string;
  queue: string;
  owner: ActorRef;
  /** null while the task is parked on a question (awaiting_input). */
  leaseUntil: Date | null;
}

/** GET /reservations: every reservation held now, by resource. */
export async function listHeldReservations(db: Executor, clock: Clock): Promise<HeldReservation[]> {
  const rows = await db.execute<Record<string, unknown>>(sql`
    SELECT r->>'resource' AS resource, r->>'mode' AS mode, h.id::text AS task_id, c.title, h.queue, h.lease_until,
           o.id AS owner_id, o.name AS owner_name, o.kind AS owner_kind
    FROM task_state h CROSS JOIN LATERAL jsonb_array_elements(h.reserves) r
    ${contentOf("h")}
    JOIN actors o ON o.id = h.owner_id
    WHERE ${heldReserving("h", clock)}
    ORDER BY r->>'resource', h.id`);
  return rows.map((r) => ({
    resource: r.resource as string,
    mode: r.mode as Reservation["mode"],
    taskId: r.task_id as string,
    title: r.title as string,
    queue: r.queue as string,
    owner: { id: r.owner_id as string, name: r.owner_name as string, kind: r.owner_kind as ActorRef["kind"] },
    leaseUntil: r.lease_until === null ? null : parseTimestamp(r.lease_until as string),
  }));
}
