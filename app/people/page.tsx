import type { Metadata } from "next";
import { getDatabase } from "@/db";
import { listAudit } from "@/lib/auth/audit";
import { listPeople } from "@/lib/auth/people";
import { AuditLog } from "@/components/supervisor/audit-log";
import { People } from "@/components/supervisor/people";
import { toWire } from "@/components/task/wire";
import { requireSupervisor, streamPosition, viewerOf } from "../_lib/session";

export const metadata: Metadata = { title: "People · Claimboard" };

export default async function PeoplePage() {
  const user = await requireSupervisor("/people", "people");
  await streamPosition(); // before any read: the browser's stream resumes from there
  const { db } = getDatabase();
  const [people, audit] = await Promise.all([listPeople(db), listAudit(db, "person")]);
  return (
    <main className="mx-auto max-w-screen-lg px-4 py-4">
      <h1 className="mb-4 text-xl font-semibold">People</h1>
      <People initial={toWire(people)} viewer={viewerOf(user)} />
      <div className="mt-6">
        <AuditLog subject="person" initial={toWire(audit)} />
      </div>
    </main>
  );
}
