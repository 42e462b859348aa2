"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { raiseBudgetAction } from "@/app/actions/supervise";
import { questionKeys } from "@/components/questions/keys";
import { taskKeys } from "@/components/task/api";
import { Button } from "@/components/ui/button";

// A supervisor's answer to a budget question (docs/budgets.md): raise the limit by an amount,
// and the task's owner goes on with a fresh lease. The engine decides who may and refuses an
// amount that would leave the limit at or under what was spent (400 naming `add`).
export function RaiseBudgetForm({ taskId, version, unit }: { taskId: string; version: number; unit?: string }) {
  const client = useQueryClient();
  const [add, setAdd] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const field = `raise-${taskId}`;
  const submit = async () => {
    const amount = Number(add);
    if (!add.trim() || !Number.isFinite(amount) || amount <= 0) return setError("Enter an amount greater than 0 to add to the limit.");
    setBusy(true);
    setError(null);
    const result = await raiseBudgetAction({ taskId, version, add: amount });
    setBusy(false);
    if (!result.ok) return setError(result.error.message);
    setAdd("");
    void client.invalidateQueries({ queryKey: questionKeys.open });
    void client.invalidateQueries({ queryKey: questionKeys.task(taskId) });
    void client.invalidateQueries({ queryKey: taskKeys.detail(taskId) });
  };
  return (
    <form noValidate className="mt-2 flex flex-wrap items-end gap-2" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
      <label htmlFor={field} className="flex flex-col text-xs text-slate-700">
        Add to the limit{unit ? ` (${unit})` : ""}
        <input id={field} inputMode="decimal" value={add} onChange={(e) => setAdd(e.target.value)} aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${field}-error` : undefined} className="mt-0.5 w-32 rounded border border-slate-300 px-2 py-1 text-sm" />
      </label>
      <Button size="sm" type="submit" disabled={busy}>Raise budget</Button>
      {error ? <p id={`${field}-error`} role="alert" className="w-full text-sm text-red-700">{error}</p> : null}
    </form>
  );
}
