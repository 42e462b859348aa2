"use client";

import { useQuery } from "@tanstack/react-query";
import { taskQuestionsAction } from "@/app/questions/actions";
import { useViewer } from "@/components/realtime/viewer";
import { ActorName } from "@/components/task/badges";
import { unwrap } from "@/components/task/mutations";
import { toWire, type TaskView } from "@/components/task/wire";
import { LocalTime } from "@/components/ui/local-time";
import { AnswerForm } from "./answer-form";
import { RaiseBudgetForm } from "@/components/budgets/raise-form";
import { questionKeys } from "./keys";

/**
 * A task's questions on its page (docs/questions.md): what was asked, by whom, and the answer
 * — or, while the task waits, the answer form for anyone but the asker. Refetched on every
 * event of the task (its detail key).
 */
export function TaskQuestions({ task }: { task: TaskView }) {
  const viewer = useViewer();
  const { data } = useQuery({
    queryKey: questionKeys.task(task.id),
    queryFn: async () => toWire(await unwrap(taskQuestionsAction({ taskId: task.id }))),
    enabled: !task.pending,
  });
  if (!data || data.length === 0) return null;
  return (
    <section aria-label="Questions" className="rounded-lg border border-amber-200 bg-amber-50 p-3" data-testid="task-questions">
      <h2 className="text-sm font-semibold">Questions to a person</h2>
      <ul className="mt-1 space-y-2">
        {data.map((q) => (
          <li key={q.id} className="text-sm" data-testid={`task-question-${q.id}`}>
            <p className="font-medium wrap-anywhere">{q.question}</p>
            <p className="text-xs text-slate-700">
              <ActorName actor={q.askedBy} /> asked <LocalTime iso={q.askedAt} withDate />
              {q.choices.length > 0 ? ` · choices: ${q.choices.join(", ")}` : ""}
            </p>
            {q.answer ? (
              <p className="mt-1" data-testid="question-answer">
                Answer: <span className="font-medium">{q.answer.text}</span> — <ActorName actor={q.answer.by} />, <LocalTime iso={q.answer.at} withDate />
              </p>
            ) : q.expiredAt && task.status === "cancelled" && new Date(q.expiredAt) < new Date(q.deadline) ? (
              <p className="mt-1 text-slate-700">Closed unanswered: the task was cancelled.</p>
            ) : q.expiredAt ? (
              <p className="mt-1 text-red-800">Unanswered past its deadline (<LocalTime iso={q.deadline} withDate />): the task went to the supervisors&apos; inbox.</p>
            ) : q.kind === "budget" ? (
              task.status === "awaiting_input" && viewer?.role === "supervisor" ? (
                <RaiseBudgetForm taskId={task.id} version={task.version} unit={task.budget?.unit} />
              ) : (
                <p className="mt-1 text-slate-700">Waiting for a supervisor to raise the budget until <LocalTime iso={q.deadline} withDate />.</p>
              )
            ) : task.status === "awaiting_input" && viewer && viewer.actorId !== q.askedBy.id ? (
              <AnswerForm taskId={task.id} questionId={q.id} choices={q.choices} />
            ) : (
              <p className="mt-1 text-slate-700">Waiting for a person&apos;s answer until <LocalTime iso={q.deadline} withDate />.</p>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
