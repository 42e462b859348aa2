import type { Metadata } from "next";
import { getDatabase } from "@/db";
import { listAgentTokens } from "@/lib/auth/token-list";
import { AgentTokens } from "@/components/supervisor/agent-tokens";
import { toWire } from "@/components/task/wire";
import { requireSupervisor, streamPosition } from "../_lib/session";

export const metadata: Metadata = { title: "Agents · Claimboard" };

export default async function AgentsPage() {
  await requireSupervisor("/agents", "agents");
  await streamPosition(); // before any read: the browser's stream resumes from there
  const tokens = await listAgentTokens(getDatabase().db);
  return (
    <main className="mx-auto max-w-screen-lg px-4 py-4">
      <h1 className="mb-4 text-xl font-semibold">Agents</h1>
      <AgentTokens initial={toWire(tokens)} />
    </main>
  );
}
