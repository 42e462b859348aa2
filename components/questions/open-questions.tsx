"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { openQuestionsAction } from "@/app/questions/actions";
import { ActorName } from "@/components/task/badges";
import { unwrap } from "@/components/task/mutations";
import { toWire, type Wire } from "@/components/task/wire";
import { focusRing } from "@/components/ui/button";
import { LocalTime } from "@/components/ui/local-time";
import type { OpenQuestion } from "@/lib/tasks";
import { AnswerForm } from "./answer-form";
import { RaiseBudgetForm } from "@/components/budgets/raise-form";
import { questionKeys } from "./keys";

export type OpenQuestionView = Wire<OpenQuestion>;

/**
 * The inbox's Questions section (docs/questions.md): open questions, soonest deadline first,
 * read again on every event, so an agent's question appears as it is asked and leaves as it
 * is answered — by anyone. Staff see their queues', supervisors every queue's.
 */
export function OpenQuestions({ initial }: { initial: OpenQuestionView[] }) {
  const { data } = useQuery({
    queryKey: questionKeys.open,
    queryFn: async () => toWire(await unwrap(openQuestionsAction({}))),
    initialData: initial,
  });
  return (
    <section aria-labelledby="questions-heading" className="space-y-2" data-testid="open-questions">
      <h2 id="questions-heading" className="text-lg font-semibold">
        Questions <span className="text-slate-700">({data.length})</span>
      </h2>
      {data.length === 0 ? (
        <p className="text-sm text-slate-700">No open questions: nobody is waiting for an answer.</p>
      ) : (
        <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white">
          {data.map((q) => (
            <li key={q.id} data-testid={`question-${q.id}`} className="px-3 py-2 text-sm">
              <p className="font-medium wrap-anywhere">{q.question}</p>
              <p className="text-xs text-slate-700">
                <ActorName actor={q.askedBy} /> asks on{" "}
                <Link href={`/tasks/${q.taskId}`} className={`rounded text-blue-800 underline underline-offset-2 ${focusRing}`}>#{q.taskId} {q.title}</Link>
                {" "}({q.queue}) · answer by <LocalTime iso={q.deadline} withDate />
              </p>
              {q.kind === "budget" ? (
                <RaiseBudgetForm taskId={q.taskId} version={q.taskVersion} />
              ) : (
                <AnswerForm taskId={q.taskId} questionId={q.id} choices={q.choices} />
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
