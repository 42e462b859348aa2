import type { Metadata } from "next";
import { getDatabase } from "@/db";
import { listAudit } from "@/lib/auth/audit";
import { readFleet } from "@/lib/fleet";
import { AgentTokens } from "@/components/supervisor/agent-tokens";
import { AuditLog } from "@/components/supervisor/audit-log";
import { toWire } from "@/components/task/wire";
import { requireSupervisor, streamPosition } from "../_lib/session";

export const metadata: Metadata = { title: "Agents · Claimboard" };

export default async function AgentsPage() {
  await requireSupervisor("/agents", "agents");
  await streamPosition(); // before any read: the browser's stream resumes from there
  const { db } = getDatabase();
  const [fleet, audit] = await Promise.all([readFleet(db), listAudit(db, "token")]);
  return (
    <main className="mx-auto max-w-screen-lg px-4 py-4">
      <h1 className="mb-4 text-xl font-semibold">Agents</h1>
      <AgentTokens initial={toWire(fleet.tokens)} fleet={toWire(fleet)} />
      <div className="mt-6">
        <AuditLog subject="token" initial={toWire(audit)} />
      </div>
    </main>
  );
}
