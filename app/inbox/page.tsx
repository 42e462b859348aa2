import type { Metadata } from "next";
import { getDatabase } from "@/db";
import { listOpenQuestions, listQueueNames, readInbox, readLapsed, perform, readInReview } from "@/lib/tasks";
import { queueName } from "@/lib/tasks/model";
import { Inbox } from "@/components/supervisor/inbox";
import { inboxSort } from "@/components/supervisor/inbox-view";
import { toWire } from "@/components/task/wire";
import { requireSupervisor, streamPosition } from "../_lib/session";
import { listDisabledWebhooks } from "@/lib/webhooks/ops";
import { DisabledWebhooks } from "@/components/supervisor/disabled-webhooks";
import { PausedSchedules } from "@/components/supervisor/paused-schedules";
import { listPausedSchedules } from "@/lib/schedules/ops";
import { LapsedHoldings } from "@/components/supervisor/lapsed";
import { OpenQuestions } from "@/components/questions/open-questions";
import { InReviewTasks } from "@/components/supervisor/in-review";

export const metadata: Metadata = { title: "Inbox · Claimboard" };

export default async function InboxPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
  const parsed = queueName.safeParse(first(params.queue));
  const queue = parsed.success ? parsed.data : null;
  // The search and sort live in the URL too (the browser filters; see components/supervisor/inbox-view.ts).
  const search = (first(params.q) ?? "").slice(0, 200);
  const sort = inboxSort(first(params.sort));
  const user = await requireSupervisor(`/inbox${queue ? `?queue=${encodeURIComponent(queue)}` : ""}`, "inbox");
  await streamPosition(); // before any read: the browser's stream resumes from there
  const { db } = getDatabase();
  // Open questions first: a past-deadline one is expired (escalated) before the inbox is read.
  const questions = await perform(listOpenQuestions, {}, { db, actor: user.actor, standing: "supervisor" });
  const [inbox, queues, lapsed, disabledHooks, inReview, pausedSchedules] = await Promise.all([
    readInbox(db, queue, user.actor), listQueueNames(db), readLapsed(db), listDisabledWebhooks(db), readInReview(db, queue, user.actor),
    listPausedSchedules(db),
  ]);
  return (
    // overflow-wrap anywhere: a long URL in a title or a failure reason breaks instead of widening the page.
    <main className="mx-auto max-w-screen-lg px-4 py-4 [overflow-wrap:anywhere]">
      <h1 className="mb-4 text-xl font-semibold">Escalation inbox</h1>
      <DisabledWebhooks hooks={disabledHooks} />
      <PausedSchedules schedules={pausedSchedules} />
      <div className="mb-6">
        <OpenQuestions initial={toWire(questions.ok ? questions.value : [])} />
      </div>
      <Inbox initial={toWire(inbox)} queues={queues} initialSearch={search} initialSort={sort} />
      <div className="mt-6">
        <InReviewTasks initial={toWire(inReview)} />
      </div>
      <div className="mt-6">
        <LapsedHoldings initial={toWire(lapsed)} />
      </div>
    </main>
  );
}
