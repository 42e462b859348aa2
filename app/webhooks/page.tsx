import type { Metadata } from "next";
import { getDatabase } from "@/db";
import { listAudit } from "@/lib/auth/audit";
import { listQueueNames } from "@/lib/tasks";
import { listWebhooks } from "@/lib/webhooks/ops";
import { AuditLog } from "@/components/supervisor/audit-log";
import { Webhooks } from "@/components/supervisor/webhooks";
import { toWire } from "@/components/task/wire";
import { requireSupervisor } from "../_lib/session";

export const metadata: Metadata = { title: "Webhooks · Claimboard" };

export default async function WebhooksPage() {
  await requireSupervisor("/webhooks", "webhooks");
  const { db } = getDatabase();
  const [hooks, queues, audit] = await Promise.all([listWebhooks(db), listQueueNames(db), listAudit(db, "webhook")]);
  return (
    <main className="mx-auto max-w-screen-lg px-4 py-4">
      <h1 className="mb-1 text-xl font-semibold">Webhooks</h1>
      <p className="mb-4 text-sm text-slate-600">
        Claimboard POSTs each matching event to these endpoints, signed (Standard Webhooks), retried for over an hour; a 410 answer disables one.
      </p>
      <Webhooks initial={toWire(hooks)} queues={queues} />
      <div className="mt-6"><AuditLog subject="webhook" initial={toWire(audit)} /></div>
    </main>
  );
}
