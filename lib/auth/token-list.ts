import "server-only";
import { desc, eq, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Executor } from "@/db/client";
import { actors, agentTokens, oauthClients, oauthConnections, type TokenRole } from "@/db/schema";
import { monthOf } from "@/lib/tasks";

export interface AgentTokenRow {
  id: string;
  /** The token's agent: what the fleet page groups tokens by. */
  actorId: string;
  name: string;
  prefix: string;
  role: TokenRole;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** A token made by an OAuth sign-in (an MCP connector): the client and the person who approved it. */
  connection: { client: string; owner: string } | null;
  expiresAt: Date | null;
  /** Who made it (null for tokens older than this record, or made by seeds). */
  createdBy: { id: string; name: string } | null;
  /** The agent's cap a calendar month (docs/budgets.md); null: none. */
  monthlyBudget: { limit: number; unit: string } | null;
  /** What the agent reported spending this month (UTC), by unit ('' for tasks without a budget). */
  spentThisMonth: Record<string, number>;
}

const maker = alias(actors, "maker");

/** Every token, newest first, for the supervisors' page. The hash is never selected. */
export async function listAgentTokens(db: Executor): Promise<AgentTokenRow[]> {
  return db
    .select({
      id: agentTokens.id,
      actorId: agentTokens.actorId,
      name: agentTokens.name,
      prefix: agentTokens.prefix,
      role: agentTokens.role,
      createdAt: agentTokens.createdAt,
      lastUsedAt: agentTokens.lastUsedAt,
      revokedAt: agentTokens.revokedAt,
      expiresAt: agentTokens.expiresAt,
      makerId: maker.id,
      makerName: maker.name,
      client: oauthClients.name,
      owner: actors.name,
      capLimit: agentTokens.monthlyBudgetLimit,
      capUnit: agentTokens.monthlyBudgetUnit,
      spent: sql<Record<string, string> | null>`(SELECT jsonb_object_agg(s.unit, s.spent) FROM actor_spend s
        WHERE s.actor_id = ${agentTokens.actorId} AND s.month = ${monthOf(sql`now()`)})`,
    })
    .from(agentTokens)
    .leftJoin(maker, eq(maker.id, agentTokens.createdBy))
    .leftJoin(oauthConnections, eq(oauthConnections.tokenId, agentTokens.id))
    .leftJoin(oauthClients, eq(oauthClients.id, oauthConnections.clientId))
    .leftJoin(actors, eq(actors.id, oauthConnections.personId))
    .orderBy(desc(agentTokens.createdAt), desc(agentTokens.id))
    .limit(1000)
    .then((rows) =>
      rows.map(({ makerId, makerName, client, owner, capLimit, capUnit, spent, ...row }) => ({
        ...row,
        monthlyBudget: capLimit !== null && capUnit !== null ? { limit: Number(capLimit), unit: capUnit } : null,
        spentThisMonth: Object.fromEntries(Object.entries(spent ?? {}).map(([unit, amount]) => [unit, Number(amount)])),
        createdBy: makerId && makerName ? { id: makerId, name: makerName } : null,
        connection: client !== null && owner !== null ? { client, owner } : null,
      })),
    );
}
