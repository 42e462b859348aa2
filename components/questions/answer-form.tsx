"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { answerQuestionAction } from "@/app/questions/actions";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { LIMITS } from "@/lib/limits";
import { taskKeys } from "@/components/task/api";
import { useToast } from "@/components/ui/toaster";
import { questionKeys } from "./keys";

// A person's answer to an open question: a button per choice, or a free-text answer. The
// engine decides who may (never the asker: self_review) and refuses a choice not offered.
export function AnswerForm({ taskId, questionId, choices }: { taskId: string; questionId: string; choices: string[] }) {
  const client = useQueryClient();
  const { notify } = useToast();
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const send = async (answer: { text: string; choice?: string }) => {
    setBusy(true);
    setError(null);
    const result = await answerQuestionAction({ taskId, questionId, ...answer });
    setBusy(false);
    // Either way the lists are read again: a refusal usually means the question moved on (an
    // answer from someone else, an expiry) and the live stream may not have said so yet.
    void client.invalidateQueries({ queryKey: questionKeys.open });
    void client.invalidateQueries({ queryKey: questionKeys.task(taskId) });
    void client.invalidateQueries({ queryKey: taskKeys.detail(taskId) });
    if (!result.ok) {
      // A question that moved on leaves the list with this form, so the toast keeps the sentence.
      if (result.error.code === "invalid_transition") notify("error", result.error.message);
      return setError(result.error.message);
    }
    setText("");
  };
  const answer = text.trim();
  const sendable = answer.length > 0 && answer.length <= LIMITS.answer;
  return (
    <div className="mt-2 space-y-2">
      {choices.length > 0 ? (
        <div className="flex flex-wrap gap-2" role="group" aria-label="Choices">
          {choices.map((choice) => (
            <Button key={choice} size="sm" disabled={busy} onClick={() => void send({ text: choice, choice })}>{choice}</Button>
          ))}
        </div>
      ) : null}
      <form className="flex flex-wrap items-end gap-2" noValidate onSubmit={(e) => { e.preventDefault(); if (sendable) void send({ text: answer }); }}>
        <div className="min-w-64 flex-1">
          <TextField label={choices.length > 0 ? "Or answer in your own words" : "Your answer"} value={text} limit={LIMITS.answer} onChange={(e) => setText(e.target.value)} />
        </div>
        <Button size="sm" type="submit" disabled={busy || !sendable}>Answer</Button>
      </form>
      {error ? <p role="alert" className="text-sm text-red-700">{error}</p> : null}
    </div>
  );
}
