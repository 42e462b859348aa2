import "server-only";
import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { TaskStatus } from "@/db/schema";
import { listAgentTokens, type AgentTokenRow } from "@/lib/auth/token-list";
import type { ActorRef } from "@/lib/tasks/model";
import { seenUntilOf, waitFacts, type OpenWait } from "./fleet-state";
import { fleetStateAt, type FleetState } from "./fleet-now";

// The fleet page's reads (docs/fleet.md). Nothing here adds to the engine's write path: no
// index on the log takes every event of an agent (migration 0026 dropped (actor_id,
// created_at), which took three entries a loop task). What each read walks:
// - the recent window: every event of the last INSTANCE_WINDOW_MINUTES, one block range of
//   task_events_time (BRIN on created_at) — each agent's newest event in it and its
//   instances; it costs what those minutes wrote, whatever the log's size;
// - which agents: actors of kind agent with a token, or that worked — an event in the
//   window, an outcome (task_events_actor_outcomes), a lapse (task_events_lapsed_owner) or
//   a task it holds (task_held_owner) or held last (tasks_settled_owner) — each an index probe;
// - last sign of life: its newest event in the window; quieter than that, the newest of its
//   last completion or failure (task_events_actor_outcomes, a backward walk of one entry)
//   and its token's last use (written at most once a minute);
// - done and failed in 24 h: task_events_actor_outcomes (partial: those two types only);
// - lapsed in 24 h: task_events_lapsed_owner (lease_expired by previous owner);
// - held now: task_held_owner. Counts stop at COUNT_CAP.

export const FLEET_LIMIT = 200;
export const INSTANCE_WINDOW_MINUTES = 15;
const COUNT_CAP = 10_000;
const HELD_SHOWN = 20;

export interface HeldTask {
  id: string;
  title: string;
  queue: string;
  status: TaskStatus;
  version: number;
  leaseUntil: Date | null;
  /** Renewals in a row without progress and the queue's limit, where it sets one (docs/leases.md); null otherwise. */
  withoutProgress: { renewals: number; max: number } | null;
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
  /** working, waiting, idle or gone (lib/fleet-state.ts), as of the read. */
  state: FleetState;
  /** Its open claim wait: on which queue, since when, until when at the latest. */
  waiting: OpenWait | null;
  /** Seen until then: past it, a quiet agent is gone rather than idle. */
  seenUntil: Date | null;
}

export interface Fleet {
  /** Agents that work: an agent-role token, or none (the engine called directly). */
  agents: FleetAgent[];
  /** Agents whose tokens are only observer or supervisor tokens: watchers and operators, listed apart. */
  apart: FleetAgent[];
  /** More agents exist than FLEET_LIMIT; the quietest are left out. */
  truncated: boolean;
  tokens: AgentTokenRow[];
}

type Row = Record<string, unknown>;
const idList = (ids: string[]) => sql`ARRAY[${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)}]::uuid[]`;

/** The recent window of the log: events after this instant are read as a time range. */
const windowStart = sql`now() - make_interval(mins => ${INSTANCE_WINDOW_MINUTES})`;

async function agentRows(db: Executor): Promise<Row[]> {
  return db.execute<Row>(sql`
    WITH newest AS (
      -- A claim that started its task in one act (one claimed event, started: true) reads as
      -- it did when it was two events, the newer of them a start.
      SELECT DISTINCT ON (e.actor_id) e.actor_id, e.created_at,
             CASE WHEN e.type = 'claimed' AND e.payload @> '{"started": true}' THEN 'started' ELSE e.type::text END AS type
      FROM task_events e WHERE e.created_at > ${windowStart}
      ORDER BY e.actor_id, e.created_at DESC, e.id DESC
    )
    SELECT a.id, a.name, last.at AS last_at, last.type AS last_type,
      (SELECT count(*)::int FROM (SELECT 1 FROM task_events e WHERE e.actor_id = a.id AND e.type = 'completed'
         AND e.created_at > now() - interval '24 hours' LIMIT ${COUNT_CAP}) x) AS done,
      (SELECT count(*)::int FROM (SELECT 1 FROM task_events e WHERE e.actor_id = a.id AND e.type = 'failed'
         AND e.created_at > now() - interval '24 hours' LIMIT ${COUNT_CAP}) x) AS failed,
      (SELECT count(*)::int FROM (SELECT 1 FROM task_events e WHERE e.type = 'lease_expired' AND e.payload->>'previousOwnerId' = a.id::text
         AND e.created_at > now() - interval '24 hours' LIMIT ${COUNT_CAP}) x) AS lapsed
    FROM actors a
    LEFT JOIN newest n ON n.actor_id = a.id
    -- Quiet for longer than the window: its last outcome or its token's last use, the newer.
    LEFT JOIN LATERAL (
      SELECT v.at, v.type FROM (
        (SELECT e.created_at, e.type::text FROM task_events e WHERE e.actor_id = a.id AND e.type = 'completed' ORDER BY e.created_at DESC LIMIT 1)
        UNION ALL
        (SELECT e.created_at, e.type::text FROM task_events e WHERE e.actor_id = a.id AND e.type = 'failed' ORDER BY e.created_at DESC LIMIT 1)
        UNION ALL
        SELECT max(t.last_used_at), 'token_used' FROM agent_tokens t WHERE t.actor_id = a.id
      ) v(at, type)
      WHERE n.actor_id IS NULL AND v.at IS NOT NULL
      ORDER BY v.at DESC LIMIT 1
    ) quiet ON true
    CROSS JOIN LATERAL (SELECT coalesce(n.created_at, quiet.at) AS at, coalesce(n.type, quiet.type) AS type) last
    WHERE a.kind = 'agent'
      AND (last.at IS NOT NULL
        OR EXISTS (SELECT 1 FROM agent_tokens t WHERE t.actor_id = a.id)
        OR EXISTS (SELECT 1 FROM task_held h WHERE h.owner_id = a.id)
        OR EXISTS (SELECT 1 FROM task_state t WHERE t.settled_owner = a.id)
        OR EXISTS (SELECT 1 FROM task_events e WHERE e.type = 'lease_expired' AND e.payload->>'previousOwnerId' = a.id::text))
    ORDER BY last.at DESC NULLS LAST, a.name, a.id
    LIMIT ${FLEET_LIMIT + 1}`);
}

async function instanceRows(db: Executor, ids: string[]): Promise<Row[]> {
  return db.execute<Row>(sql`
    SELECT e.actor_id, e.payload->>'instance' AS instance, max(e.created_at) AS last_at,
           -- Live until its last sign of life is a lease old (the lease of the queue it worked in).
           max(e.created_at + make_interval(secs => q.lease_seconds)) AS live_until
    FROM task_events e LEFT JOIN queues q ON q.name = e.queue
    WHERE e.created_at > ${windowStart} AND e.actor_id = ANY(${idList(ids)}) AND e.payload ? 'instance'
    GROUP BY 1, 2
    ORDER BY last_at DESC`);
}

async function heldRows(db: Executor, ids: string[]): Promise<Row[]> {
  return db.execute<Row>(sql`
    SELECT h.owner_id, t.id::text AS id, t.title, t.queue, t.status, t.version, t.lease_until,
           s.renewals_without_progress AS without_progress, q.max_renewals_without_progress AS max_without_progress
    FROM task_held h JOIN tasks t ON t.id = h.id JOIN task_state s ON s.id = h.id JOIN queues q ON q.name = t.queue
    WHERE h.owner_id = ANY(${idList(ids)})
    ORDER BY t.lease_until, t.id
    LIMIT ${COUNT_CAP}`);
}

const date = (value: unknown) => (value instanceof Date ? value : new Date(String(value)));

/** Every agent — tokens and the agents that worked — with what each is doing now. */
export async function readFleet(db: Executor): Promise<Fleet> {
  const [rows, tokens] = await Promise.all([agentRows(db), listAgentTokens(db)]);
  const shown = rows.slice(0, FLEET_LIMIT);
  const ids = shown.map((r) => String(r.id));
  const [instances, held, waits] = ids.length
    ? await Promise.all([instanceRows(db, ids), heldRows(db, ids), waitFacts(db, ids)])
    : [[], [], new Map()];
  const all = shown.map((row): FleetAgent => {
    const id = String(row.id);
    const mine = held.filter((h) => h.owner_id === id);
    const agent: Omit<FleetAgent, "state" | "waiting" | "seenUntil"> = {
      actor: { id, name: String(row.name), kind: "agent" },
      tokens: tokens.filter((t) => t.actorId === id),
      instances: instances.filter((i) => i.actor_id === id).map((i) => ({ instance: String(i.instance), lastSeenAt: date(i.last_at), liveUntil: i.live_until ? date(i.live_until) : null })),
      held: mine.slice(0, HELD_SHOWN).map((h) => ({
        id: String(h.id), title: String(h.title), queue: String(h.queue), status: h.status as TaskStatus,
        version: Number(h.version), leaseUntil: h.lease_until ? date(h.lease_until) : null,
        withoutProgress: Number(h.max_without_progress) > 0 ? { renewals: Number(h.without_progress), max: Number(h.max_without_progress) } : null,
      })),
      heldCount: mine.length,
      lastSeen: row.last_at ? { at: date(row.last_at), type: String(row.last_type) } : null,
      day: { done: Number(row.done), failed: Number(row.failed), lapsed: Number(row.lapsed) },
    };
    const facts = waits.get(id);
    const decided = { ...agent, waiting: facts?.wait ?? null, seenUntil: seenUntilOf(agent, facts) };
    return { ...decided, state: fleetStateAt(decided, Date.now()) };
  });
  const apart = (a: FleetAgent) => a.tokens.length > 0 && a.tokens.every((t) => t.role !== "agent");
  return { agents: all.filter((a) => !apart(a)), apart: all.filter(apart), truncated: rows.length > FLEET_LIMIT, tokens };
}
