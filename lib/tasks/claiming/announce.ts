import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import type { ActorRef } from "../core/types";
import type { Clock } from "../core/clock";
import { appendEvents, SYSTEM_ACTOR_ID, type NewEvent } from "../core/events";

// A lapse announced (contract v1.3, docs/claiming.md "Lazy expiry, announced"). Expiry stays
// lazy: nothing here changes a task. A server's lapse clock (lib/realtime/lapse-clock.ts) calls
// these at the earliest lease end it knows of; they write one `lapsed` fact per attempt, however
// many servers call them, and tell the clock where the next lease end is.

/** A place in the order of lease ends, (lease_until, id): how far a clock has announced. */
export interface LeaseMark {
  /** lease_until as PostgreSQL prints it (microseconds kept: a batch claim gives many the same). */
  at: string;
  id: string;
}

/** Most lapses one call announces: a storm of leases ending together is a few short calls. */
export const ANNOUNCE_BATCH = 200;

const BEGINNING: LeaseMark = { at: "-infinity", id: "0" };

/**
 * The leases that ended after `after` and by now, in (lease_until, id) order, at most `limit`:
 * one walk of task_lease_until per queue, starting at `after` (never over the lapses a clock
 * already passed, however many stay unclaimed).
 */
const endedAfter = (after: LeaseMark, now: ReturnType<Clock["now"]>, limit: number) => sql`
  SELECT d.id, d.lease_until FROM queues q CROSS JOIN LATERAL (
    SELECT l.id, l.lease_until FROM task_lease l
    WHERE l.queue = q.name AND l.lease_until >= ${after.at}::timestamptz AND l.lease_until <= ${now}
      AND (l.lease_until, l.id) > (${after.at}::timestamptz, ${after.id}::bigint)
    ORDER BY l.lease_until, l.id LIMIT ${limit}
  ) d
  ORDER BY d.lease_until, d.id LIMIT ${limit}`;

export interface Announced {
  /** Lapses written now (a lease another server announced, or one renewed or ended meanwhile, is not). */
  announced: number;
  /** Leases looked at: `limit` of them means more may have ended (call again). */
  scanned: number;
  /** The last lease looked at: where the next call starts. */
  last: LeaseMark | null;
}

type Row = { id: string; queue: string; attempt: number; version: number; status: string; lease_until: string; owner_id: string; owner_name: string; owner_kind: ActorRef["kind"] };

/**
 * Announces the lapses of leases that ended after `after`, in one transaction. "Once per
 * attempt" is the guarded UPDATE of task_lease.announced_attempt (migration 0036): a second
 * server, or a second call, finds it naming the attempt and writes nothing. The rows are
 * locked in id order, so two servers announcing the same storm wait on each other and never
 * deadlock; a claim or a completion of the same task locks task_state first and task_lease
 * after, and the lease it moved or deleted no longer qualifies when the lock is granted.
 */
export async function announceLapses(db: Db, clock: Clock, after: LeaseMark | null, limit = ANNOUNCE_BATCH): Promise<Announced> {
  return db.transaction(async (tx) => {
    const now = clock.now();
    const rows = await tx.execute<Row & { scanned: number; last_at: string | null; last_id: string | null }>(sql`
      WITH ended AS (${endedAfter(after ?? BEGINNING, now, limit)}),
      edge AS (
        SELECT count(*)::int AS scanned, (array_agg(lease_until::text ORDER BY lease_until DESC, id DESC))[1] AS last_at,
               (array_agg(id::text ORDER BY lease_until DESC, id DESC))[1] AS last_id
        FROM ended
      ),
      locked AS (
        SELECT l.id FROM task_lease l WHERE l.id IN (SELECT id FROM ended) AND l.lease_until <= ${now}
        ORDER BY l.id FOR NO KEY UPDATE OF l
      ),
      announced AS (
        UPDATE task_lease l SET announced_attempt = s.attempt
        FROM locked k, task_state s, actors a
        WHERE l.id = k.id AND s.id = l.id AND a.id = s.owner_id
          AND s.status IN ('claimed', 'started') AND l.lease_until <= ${now}
          AND l.announced_attempt IS DISTINCT FROM s.attempt
        RETURNING l.id::text AS id, s.queue, s.attempt, s.version, s.status::text AS status, l.lease_until,
                  a.id::text AS owner_id, a.name AS owner_name, a.kind::text AS owner_kind
      )
      SELECT edge.scanned, edge.last_at, edge.last_id, announced.* FROM edge LEFT JOIN announced ON true`);
    const edge = rows[0];
    const events: NewEvent[] = rows.filter((r) => r.id !== null).map((r) => ({
      taskId: BigInt(r.id), queue: r.queue, actorId: SYSTEM_ACTOR_ID, type: "lapsed",
      payload: {
        version: r.version, status: r.status as "claimed" | "started", attempt: r.attempt,
        leaseUntil: new Date(r.lease_until).toISOString(),
        owner: { id: r.owner_id, name: r.owner_name, kind: r.owner_kind },
      },
    }));
    await appendEvents(tx, clock, events);
    return {
      announced: events.length,
      scanned: edge?.scanned ?? 0,
      last: edge?.last_at && edge.last_id ? { at: edge.last_at, id: edge.last_id } : null,
    };
  });
}

/** The next lease end after `after`, and how far from now it is (by the database's clock). */
export interface NextEnd {
  at: string;
  /** Milliseconds from now (negative: already past, announce again at once). */
  inMs: number;
  /** The database's now, in milliseconds since the epoch: a caller's timer converts the events' lease ends with it. */
  nowMs: number;
}

/**
 * The earliest lease end after `after`: one probe of task_lease_until per queue, whatever the
 * number of held tasks. Null when no lease runs past `after` (nothing held).
 */
export async function nextLeaseEnd(db: Db, clock: Clock, after: LeaseMark | null): Promise<NextEnd | null> {
  const mark = after ?? BEGINNING;
  const [row] = await db.execute<{ at: string | null; in_ms: number | null; now_ms: number }>(sql`
    SELECT min(n.lease_until)::text AS at, (extract(epoch FROM min(n.lease_until) - ${clock.now()}) * 1000)::float8 AS in_ms,
           (extract(epoch FROM ${clock.now()}) * 1000)::float8 AS now_ms
    FROM queues q CROSS JOIN LATERAL (
      SELECT l.lease_until FROM task_lease l
      WHERE l.queue = q.name AND l.lease_until >= ${mark.at}::timestamptz
        AND (l.lease_until, l.id) > (${mark.at}::timestamptz, ${mark.id}::bigint)
      ORDER BY l.lease_until LIMIT 1
    ) n`);
  return row?.at ? { at: row.at, inMs: Number(row.in_ms), nowMs: Number(row.now_ms) } : null;
}
