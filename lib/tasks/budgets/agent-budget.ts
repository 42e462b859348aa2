import { and, eq, isNull } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { agentTokens } from "@/db/schema";
import type { Budget } from "../core/budget";

/** Sets the live token's monthly cap (null lifts it); the row changed, or null when no live token has the name. */
export async function setMonthlyBudgetRow(tx: Executor, name: string, monthly: Budget | null): Promise<{ id: string } | null> {
  const [row] = await tx
    .update(agentTokens)
    .set({ monthlyBudgetLimit: monthly?.limit ?? null, monthlyBudgetUnit: monthly?.unit ?? null })
    .where(and(eq(agentTokens.name, name), isNull(agentTokens.revokedAt)))
    .returning({ id: agentTokens.id });
  return row ?? null;
}
