import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { TaskStatus } from "@/db/schema";
import type { ActorRef } from "../core/types";

// Lapsed holdings, as a read (issue 27 item 2). Expiry stays lazy: nothing writes when a
// lease runs out, so the truth is read where it is shown — a held task whose lease_until
// is past is lapsed, whatever its status column says, until someone claims it (or a sweep
// materialises it). The held set's leases (task_lease, migration 0034) are what they read: a
// row for exactly each claimed or started task, written in the transaction that writes it.

/** Most lapsed tasks the inbox lists; the count stops at LAPSED_CAP + 1. */
export const LAPSED_LIMIT = 200;
export const LAPSED_CAP = 1000;

export interface LapsedTask {
  id: string;
  title: string;
  queue: string;
  status: TaskStatus;
  version: number;
  owner: ActorRef;
  leaseUntil: Date;
  /** The lease length of the claim that lapsed (what renewing would have added). */
  leaseSeconds: number;
}

export interface Lapsed {
  tasks: LapsedTask[];
  /** How many there are (up to LAPSED_CAP + 1). */
  count: number;
  /** The next moment a lease still running will lapse, so a reader can look again then (no poll). */
  nextLapseAt: Date | null;
}

type Row = Record<string, unknown>;
const date = (value: unknown) => (value instanceof Date ? value : new Date(String(value)));

/** Held tasks whose lease is past and that nobody has taken over, longest lapsed first. */
export async function readLapsed(db: Executor, limit = LAPSED_LIMIT): Promise<Lapsed> {
  const [rows, [counted], [next]] = await Promise.all([
    db.execute<Row>(sql`
      SELECT t.id::text AS id, t.title, t.queue, t.status, t.version, t.lease_until, t.lease_seconds,
             a.id AS owner_id, a.name AS owner_name, a.kind AS owner_kind
      FROM task_lease lease JOIN tasks t ON t.id = lease.id JOIN actors a ON a.id = t.owner_id
      WHERE lease.lease_until < now()
      ORDER BY lease.lease_until, lease.id
      LIMIT ${limit}`),
    db.execute<{ n: number }>(sql`
      SELECT count(*)::int AS n FROM (
        SELECT 1 FROM task_lease lease WHERE lease.lease_until < now() LIMIT ${LAPSED_CAP + 1}
      ) x`),
    db.execute<{ at: unknown }>(sql`
      SELECT min(lease.lease_until) AS at FROM task_lease lease WHERE lease.lease_until >= now()`),
  ]);
  return {
    tasks: rows.map((r) => ({
      id: String(r.id), title: String(r.title), queue: String(r.queue), status: r.status as TaskStatus, version: Number(r.version),
      owner: { id: String(r.owner_id), name: String(r.owner_name), kind: r.owner_kind as ActorRef["kind"] },
      leaseUntil: date(r.lease_until), leaseSeconds: Number(r.lease_seconds),
    })),
    count: counted?.n ?? 0,
    nextLapseAt: next?.at ? date(next.at) : null,
  };
}
