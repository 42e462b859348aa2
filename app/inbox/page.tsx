import type { Metadata } from "next";
import { getDatabase } from "@/db";
import { listQueueNames } from "@/lib/tasks/queries";
import { queueName } from "@/lib/tasks/schemas";
import { Inbox } from "@/components/supervisor/inbox";
import { toWire } from "@/components/task/wire";
import { requireSupervisor, streamPosition } from "../_lib/session";
import { readInbox } from "./data";

export const metadata: Metadata = { title: "Inbox · Claimboard" };

export default async function InboxPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const raw = (await searchParams).queue;
  const parsed = queueName.safeParse(Array.isArray(raw) ? raw[0] : raw);
  const queue = parsed.success ? parsed.data : null;
  const user = await requireSupervisor(`/inbox${queue ? `?queue=${encodeURIComponent(queue)}` : ""}`, "inbox");
  await streamPosition(); // before any read: the browser's stream resumes from there
  const { db } = getDatabase();
  const [inbox, queues] = await Promise.all([readInbox(db, queue, user.actor), listQueueNames(db)]);
  return (
    <main className="mx-auto max-w-screen-lg px-4 py-4">
      <h1 className="mb-4 text-xl font-semibold">Escalation inbox</h1>
      <Inbox initial={toWire(inbox)} queues={queues} />
    </main>
  );
}
