import type { Metadata } from "next";
import { getDatabase } from "@/db";
import { listAudit } from "@/lib/auth/audit";
import { listSchedules } from "@/lib/schedules/ops";
import { listQueueNames } from "@/lib/tasks";
import { AuditLog } from "@/components/supervisor/audit-log";
import { Schedules } from "@/components/supervisor/schedules";
import { toWire } from "@/components/task/wire";
import { requireSupervisor } from "../_lib/session";

export const metadata: Metadata = { title: "Schedules · Claimboard" };

export default async function SchedulesPage() {
  await requireSupervisor("/schedules", "schedules");
  const { db } = getDatabase();
  const [schedules, queues, audit] = await Promise.all([listSchedules(db), listQueueNames(db), listAudit(db, "schedule")]);
  return (
    <main className="mx-auto max-w-screen-lg px-4 py-4">
      <h1 className="mb-1 text-xl font-semibold">Schedules</h1>
      <p className="mb-4 text-sm text-slate-600">Routine work that recurs: every server makes each run&apos;s task exactly once, with no cron box.</p>
      <Schedules initial={toWire(schedules)} queues={queues} />
      <div className="mt-6"><AuditLog subject="schedule" initial={toWire(audit)} /></div>
    </main>
  );
}
