import "server-only";
import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { TaskStatus } from "@/db/schema";
import { listAgentTokens, type AgentTokenRow } from "@/lib/auth/token-list";
import type { ActorRef } from "@/lib/tasks/core/types";

// The fleet page's reads (docs/fleet.md). Every query is bounded and walks an index, so the
// page costs the same with a million events as with a hundred:
// - which agents: actors of kind agent (one row per token or worker, not per event) with a
//   token or at least one event — each an index probe (agent_tokens by actor, and
//   task_events_actor_time's newest entry, which is also the last sign of life);
// - instances: that agent's events of the last INSTANCE_WINDOW_MINUTES, newest first,
//   at most INSTANCE_SCAN rows (task_events_actor_time); live if one is within its queue's lease;
// - done and failed in 24 h: task_events_actor_outcomes (partial: those two types only);
// - lapsed in 24 h: task_events_lapsed_owner (lease_expired by previous owner);
// - held now: tasks_owner. Counts stop at COUNT_CAP.

export const FLEET_LIMIT = 200;
export const INSTANCE_WINDOW_MINUTES = 15;
const INSTANCE_SCAN = 1000;
const COUNT_CAP = 10_000;
const HELD_SHOWN = 20;

export interface HeldTask {
  id: string;
  title: string;
  queue: string;
  status: TaskStatus;
  version: number;
  leaseUntil: Date | null;
}

export interface FleetAgent {
  actor: ActorRef;
  tokens: AgentTokenRow[];
  /**
   * Instances (the Claimboard-Instance header) seen in the last INSTANCE_WINDOW_MINUTES;
   * live until `liveUntil`: its last sign of life plus the lease of the queue it worked in
   * (a process silent for longer than its lease is not live, whatever it held). A time,
   * not a flag, so the page sees it go quiet without reading again.
   */
  instances: { instance: string; lastSeenAt: Date; liveUntil: Date | null }[];
  held: HeldTask[];
  heldCount: number;
  /** The agent's newest event of any kind (claim, heartbeat, completion …). */
  lastSeen: { at: Date; type: string } | null;
  day: { done: number; failed: number; lapsed: number };
}

export interface Fleet {
  agents: FleetAgent[];
  /** More agents exist than FLEET_LIMIT; the quietest are left out. */
  truncated: boolean;
  tokens: AgentTokenRow[];
}

type Row = Record<string, unknown>;
const idList = (ids: string[]) => sql`ARRAY[${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)}]::uuid[]`;

async function agentRows(db: Executor): Promise<Row[]> {
  return db.execute<Row>(sql`
    SELECT a.id, a.name, a.kind, last.created_at AS last_at, last.type AS last_type,
      (SELECT count(*)::int FROM (SELECT 1 FROM task_events e WHERE e.actor_id = a.id AND e.type = 'completed'
         AND e.created_at > now() - interval '24 hours' LIMIT ${COUNT_CAP}) x) AS done,
      (SELECT count(*)::int FROM (SELECT 1 FROM task_events e WHERE e.actor_id = a.id AND e.type = 'failed'
         AND e.created_at > now() - interval '24 hours' LIMIT ${COUNT_CAP}) x) AS failed,
      (SELECT count(*)::int FROM (SELECT 1 FROM task_events e WHERE e.type = 'lease_expired' AND e.payload->>'previousOwnerId' = a.id::text
         AND e.created_at > now() - interval '24 hours' LIMIT ${COUNT_CAP}) x) AS lapsed
    FROM actors a
    LEFT JOIN LATERAL (
      SELECT e.created_at, e.type FROM task_events e WHERE e.actor_id = a.id ORDER BY e.created_at DESC, e.id DESC LIMIT 1
    ) last ON true
    WHERE a.kind = 'agent'
      AND (last.created_at IS NOT NULL OR EXISTS (SELECT 1 FROM agent_tokens t WHERE t.actor_id = a.id))
    ORDER BY last.created_at DESC NULLS LAST, a.name, a.id
    LIMIT ${FLEET_LIMIT + 1}`);
}

async function instanceRows(db: Executor, ids: string[]): Promise<Row[]> {
  return db.execute<Row>(sql`
    SELECT agent.id AS actor_id, i.instance, i.last_at, i.live_until
    FROM unnest(${idList(ids)}) AS agent(id)
    CROSS JOIN LATERAL (
      SELECT recent.payload->>'instance' AS instance, max(recent.created_at) AS last_at,
             -- Live until its last sign of life is a lease old (the lease of the queue it worked in).
             max(recent.created_at + make_interval(secs => q.lease_seconds)) AS live_until
      FROM (
        SELECT e.payload, e.created_at, e.queue FROM task_events e
        WHERE e.actor_id = agent.id AND e.created_at > now() - make_interval(mins => ${INSTANCE_WINDOW_MINUTES})
        ORDER BY e.created_at DESC LIMIT ${INSTANCE_SCAN}
      ) recent
      LEFT JOIN queues q ON q.name = recent.queue
      WHERE recent.payload ? 'instance'
      GROUP BY 1
    ) i
    ORDER BY i.last_at DESC`);
}

async function heldRows(db: Executor, ids: string[]): Promise<Row[]> {
  return db.execute<Row>(sql`
    SELECT t.owner_id, t.id::text AS id, t.title, t.queue, t.status, t.version, t.lease_until
    FROM tasks t
    WHERE t.owner_id = ANY(${idList(ids)}) AND t.status IN ('claimed', 'started')
    ORDER BY t.lease_until ASC NULLS LAST, t.id
    LIMIT ${COUNT_CAP}`);
}

const date = (value: unknown) => (value instanceof Date ? value : new Date(String(value)));

/** Every agent — tokens and the agents that worked — with what each is doing now. */
export async function readFleet(db: Executor): Promise<Fleet> {
  const [rows, tokens] = await Promise.all([agentRows(db), listAgentTokens(db)]);
  const shown = rows.slice(0, FLEET_LIMIT);
  const ids = shown.map((r) => String(r.id));
  const [instances, held] = ids.length ? await Promise.all([instanceRows(db, ids), heldRows(db, ids)]) : [[], []];
  const agents = shown.map((row): FleetAgent => {
    const id = String(row.id);
    const mine = held.filter((h) => h.owner_id === id);
    return {
      actor: { id, name: String(row.name), kind: "agent" },
      tokens: tokens.filter((t) => t.actorId === id),
      instances: instances.filter((i) => i.actor_id === id).map((i) => ({ instance: String(i.instance), lastSeenAt: date(i.last_at), liveUntil: i.live_until ? date(i.live_until) : null })),
      held: mine.slice(0, HELD_SHOWN).map((h) => ({
        id: String(h.id), title: String(h.title), queue: String(h.queue), status: h.status as TaskStatus,
        version: Number(h.version), leaseUntil: h.lease_until ? date(h.lease_until) : null,
      })),
      heldCount: mine.length,
      lastSeen: row.last_at ? { at: date(row.last_at), type: String(row.last_type) } : null,
      day: { done: Number(row.done), failed: Number(row.failed), lapsed: Number(row.lapsed) },
    };
  });
  return { agents, truncated: rows.length > FLEET_LIMIT, tokens };
}
