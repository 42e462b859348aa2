import "server-only";
import { desc, eq } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Executor } from "@/db/client";
import { actors, agentTokens, type TokenRole } from "@/db/schema";

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
  expiresAt: Date | null;
  /** Who made it (null for tokens older than this record, or made by seeds). */
  createdBy: { id: string; name: string } | null;
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
    })
    .from(agentTokens)
    .leftJoin(maker, eq(maker.id, agentTokens.createdBy))
    .orderBy(desc(agentTokens.createdAt), desc(agentTokens.id))
    .limit(1000)
    .then((rows) =>
      rows.map(({ makerId, makerName, ...row }) => ({ ...row, createdBy: makerId && makerName ? { id: makerId, name: makerName } : null })),
    );
}
