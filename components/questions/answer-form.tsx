"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { answerQuestionAction } from "@/app/questions/actions";
import { Button } from "@/components/ui/button";
import { LIMITS } from "@/lib/limits";
import { questionKeys } from "./keys";

// A person's answer to an open question: a button per choice, or a free-text answer. The
// engine decides who may (never the asker: self_review) and refuses a choice not offered.
export function AnswerForm({ taskId, questionId, choices }: { taskId: string; questionId: string; choices: string[] }) {
  const client = useQueryClient();
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const send = async (answer: { text: string; choice?: string }) => {
    setBusy(true);
    setError(null);
    const result = await answerQuestionAction({ taskId, questionId, ...answer });
    setBusy(false);
    if (!result.ok) return setError(result.error.message);
    setText("");
    void client.invalidateQueries({ queryKey: questionKeys.open });
    void client.invalidateQueries({ queryKey: questionKeys.task(taskId) });
  };
  const field = `answer-${questionId}`;
  return (
    <div className="mt-2 space-y-2">
      {choices.length > 0 ? (
        <div className="flex flex-wrap gap-2" role="group" aria-label="Choices">
          {choices.map((choice) => (
            <Button key={choice} size="sm" disabled={busy} onClick={() => void send({ text: choice, choice })}>{choice}</Button>
          ))}
        </div>
      ) : null}
      <form className="flex flex-wrap items-end gap-2" onSubmit={(e) => { e.preventDefault(); if (text.trim()) void send({ text: text.trim() }); }}>
        <label htmlFor={field} className="flex min-w-64 flex-1 flex-col text-xs text-slate-700">
          {choices.length > 0 ? "Or answer in your own words" : "Your answer"}
          <input id={field} value={text} maxLength={LIMITS.answer} onChange={(e) => setText(e.target.value)}
            className="mt-0.5 rounded border border-slate-300 px-2 py-1 text-sm" />
        </label>
        <Button size="sm" type="submit" disabled={busy || !text.trim()}>Answer</Button>
      </form>
      {error ? <p role="alert" className="text-sm text-red-700">{error}</p> : null}
    </div>
  );
}
