import "server-only";
import { desc } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { agentTokens, type TokenRole } from "@/db/schema";

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
}

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
    })
    .from(agentTokens)
    .orderBy(desc(agentTokens.createdAt), desc(agentTokens.id))
    .limit(1000);
}
