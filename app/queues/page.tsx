import type { Metadata } from "next";
import { getDatabase } from "@/db";
import { QueueSettings } from "@/components/supervisor/queue-settings";
import { toWire } from "@/components/task/wire";
import { requireSupervisor, streamPosition } from "../_lib/session";
import { databaseClock, listQueues, listHeldReservations } from "@/lib/tasks";
import { HeldReservations } from "@/components/supervisor/reservations";
import { RefreshOnEvents } from "@/components/insights/refresh-on-events";

export const metadata: Metadata = { title: "Queues · Claimboard" };

export default async function QueuesPage() {
  await requireSupervisor("/queues", "queues");
  await streamPosition(); // before any read: the browser's stream resumes from there
  const { db } = getDatabase();
  const [queues, held] = await Promise.all([listQueues(db), listHeldReservations(db, databaseClock)]);
  return (
    <main className="mx-auto max-w-screen-xl px-4 py-4">
      <h1 className="mb-4 text-xl font-semibold">Queues</h1>
      <QueueSettings initial={toWire(queues)} />
      <HeldReservations held={held} />
      <RefreshOnEvents />
    </main>
  );
}
