import type { Metadata } from "next";
import { getDatabase } from "@/db";
import { OpenQuestions } from "@/components/questions/open-questions";
import { toWire } from "@/components/task/wire";
import { listOpenQuestions, perform } from "@/lib/tasks";
import { personStanding } from "@/lib/tasks/model";
import { requireUser, streamPosition } from "../_lib/session";

export const metadata: Metadata = { title: "Questions · Claimboard" };

// Questions agents ask people (docs/questions.md), for everyone signed in: staff see their
// queues', supervisors every queue's (the supervisors' inbox shows the same section).
export default async function QuestionsPage() {
  const user = await requireUser("/questions");
  await streamPosition(); // before any read: the browser's stream resumes from there
  const { db } = getDatabase();
  const open = await perform(listOpenQuestions, {}, { db, actor: user.actor, standing: personStanding(user.role) });
  return (
    <main className="mx-auto max-w-screen-lg px-4 py-4 [overflow-wrap:anywhere]">
      <h1 className="mb-4 text-xl font-semibold">Questions for a person</h1>
      <OpenQuestions initial={toWire(open.ok ? open.value : [])} />
    </main>
  );
}
