"use client";

import { useState, type FormEvent } from "react";
import { setMonthlyBudgetAction } from "@/app/actions/supervise";
import { ActionFailure } from "@/components/task/mutations";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { TextField } from "@/components/ui/field";
import { useToast } from "@/components/ui/toaster";
import { formatAmount as amount } from "@/lib/tasks/model";
import type { AgentTokenView } from "./types";
import { supervisorErrorSentence, useSupervisorCall } from "./use-supervisor";

// An agent's month on the agents page (docs/budgets.md): what it spent this calendar month
// (UTC) against its cap, and a dialog to set or lift the cap. At or over the cap, claim-next
// hands the agent nothing (the engine's rule, lib/tasks/budgets/cap.ts).


/** "12 of 20 usd_cents" with a cap (its unit plus spend on tasks without a budget); else every unit spent. */
export function monthText(token: Pick<AgentTokenView, "monthlyBudget" | "spentThisMonth">): string {
  const spent = token.spentThisMonth;
  if (token.monthlyBudget) {
    const { limit, unit } = token.monthlyBudget;
    return `${amount((spent[unit] ?? 0) + (spent[""] ?? 0))} of ${amount(limit)} ${unit}`;
  }
  const parts = Object.entries(spent).filter(([, n]) => n > 0).map(([unit, n]) => `${amount(n)}${unit ? ` ${unit}` : ""}`);
  return parts.length > 0 ? `${parts.join(", ")} (no cap)` : "nothing (no cap)";
}

export function MonthlyBudgetButton({ token }: { token: AgentTokenView }) {
  const { notify } = useToast();
  const [open, setOpen] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const set = useSupervisorCall(setMonthlyBudgetAction, { verb: "set the budget of", toastErrors: false });
  const submit = (monthlyBudget: { limit: number; unit: string } | null) => {
    setProblem(null);
    set.mutate({ name: token.name, monthlyBudget }, {
      onSuccess: () => {
        setOpen(false);
        notify("info", monthlyBudget ? `${token.name} may spend ${monthlyBudget.limit} ${monthlyBudget.unit} a month.` : `${token.name} has no monthly cap now.`);
      },
      onError: (error) => setProblem(error instanceof ActionFailure && error.error.field ? `${error.error.field}: ${error.error.message}.` : supervisorErrorSentence(error, "set the budget of")),
    });
  };
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const limit = Number(String(form.get("limit") ?? "").trim());
    const unit = String(form.get("unit") ?? "").trim();
    if (!Number.isFinite(limit) || limit <= 0) return setProblem("Limit: enter a number greater than 0.");
    if (!unit) return setProblem("Unit: name the unit, e.g. usd_cents or tokens.");
    submit({ limit, unit });
  };
  return (
    <>
      <Button size="sm" aria-label={`Monthly budget of ${token.name}`} onClick={() => setOpen(true)}>Budget</Button>
      <Dialog open={open} onClose={() => setOpen(false)} title={`Monthly budget of ${token.name}`}>
        <form noValidate onSubmit={onSubmit} className="space-y-3">
          <p className="text-sm text-slate-700">This month: {monthText(token)}. At the cap, the agent is handed no new work until the month turns or the cap is raised.</p>
          <TextField name="limit" label="Limit a month" inputMode="decimal" defaultValue={token.monthlyBudget ? String(token.monthlyBudget.limit) : ""} autoComplete="off" />
          <TextField name="unit" label="Unit" hint="e.g. usd_cents or tokens; up to 20 characters" defaultValue={token.monthlyBudget?.unit ?? ""} autoComplete="off" />
          {problem ? <p role="alert" className="text-sm text-red-800">{problem}</p> : null}
          <div className="flex flex-wrap justify-end gap-2">
            {token.monthlyBudget ? <Button onClick={() => submit(null)} disabled={set.isPending}>Lift the cap</Button> : null}
            <Button type="submit" tone="primary" disabled={set.isPending}>Set budget</Button>
          </div>
        </form>
      </Dialog>
    </>
  );
}
