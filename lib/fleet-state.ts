import "server-only";
import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";

// What each agent of the fleet is doing now (docs/fleet.md "States"), the same on every
// instance: decided from the database, never from one server's memory.
// - working: it holds a lease (task_held);
// - waiting: one of its tokens has a claim wait open (claim_waits, migration 0035: stamped
//   when a wait opens and when it ends early, on whichever instance holds it);
// - idle: neither, but seen within its queue's lease length — its last event (an instance's
//   liveUntil) or the end of its last wait, plus the lease of that queue;
// - gone: none of these.
// The rule at a moment is lib/fleet-now.ts (the page applies it again as time passes).

export interface OpenWait {
  queue: string;
  since: Date;
  until: Date;
}

export interface StateFacts {
  wait: OpenWait | null;
  /** The end of its last wait plus its queue's lease: seen until then. */
  waitSeenUntil: Date | null;
}

type Row = Record<string, unknown>;
/** A queue's lease unless set (db/schema/tasks.ts queues.lease_seconds). */
const DEFAULT_LEASE_MS = 120_000;
const date = (value: unknown) => (value instanceof Date ? value : new Date(String(value)));

/** Each agent's newest claim wait (open or ended), by actor id: one index probe per token. */
export async function waitFacts(db: Executor, actorIds: string[]): Promise<Map<string, StateFacts>> {
  const facts = new Map<string, StateFacts>();
  if (actorIds.length === 0) return facts;
  const ids = sql`ARRAY[${sql.join(actorIds.map((id) => sql`${id}::uuid`), sql`, `)}]::uuid[]`;
  const rows = await db.execute<Row>(sql`
    SELECT DISTINCT ON (t.actor_id) t.actor_id, w.queue, w.since, w.until, w.until > now() AS open,
      w.until + make_interval(secs => coalesce(q.lease_seconds, 120)) AS seen_until
    FROM claim_waits w JOIN agent_tokens t ON t.id = w.token_id LEFT JOIN queues q ON q.name = w.queue
    WHERE t.actor_id = ANY(${ids})
    ORDER BY t.actor_id, (w.until > now()) DESC, w.until DESC`);
  for (const row of rows) {
    facts.set(String(row.actor_id), {
      wait: row.open === true ? { queue: String(row.queue), since: date(row.since), until: date(row.until) } : null,
      waitSeenUntil: date(row.seen_until),
    });
  }
  return facts;
}

/** When a quiet agent turns from idle to gone: its last sign of life plus its queue's lease. */
export function seenUntilOf(agent: { instances: { liveUntil: Date | null }[]; lastSeen: { at: Date } | null }, facts: StateFacts | undefined): Date | null {
  // A sign of life with no instance named (an MCP client, a script) counts for a default lease.
  const unnamed = agent.instances.length === 0 && agent.lastSeen ? agent.lastSeen.at.getTime() + DEFAULT_LEASE_MS : 0;
  const latest = Math.max(0, ...agent.instances.map((i) => i.liveUntil?.getTime() ?? 0), facts?.waitSeenUntil?.getTime() ?? 0, unnamed);
  return latest > 0 ? new Date(latest) : null;
}
