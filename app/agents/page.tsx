import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getDatabase } from "@/db";
import { hasRole } from "@/lib/auth/session";
import { listAgentTokens } from "@/lib/auth/token-list";
import { AgentTokens } from "@/components/supervisor/agent-tokens";
import { toWire } from "@/components/task/wire";
import { requireUser, streamPosition } from "../_lib/session";

export const metadata: Metadata = { title: "Agents · Claimboard" };

export default async function AgentsPage() {
  const user = await requireUser("/agents");
  if (!hasRole(user, "supervisor")) redirect("/?denied=agents");
  await streamPosition(); // before any read: the browser's stream resumes from there
  const tokens = await listAgentTokens(getDatabase().db);
  return (
    <main className="mx-auto max-w-screen-lg px-4 py-4">
      <h1 className="mb-4 text-xl font-semibold">Agents</h1>
      <AgentTokens initial={toWire(tokens)} />
    </main>
  );
}
