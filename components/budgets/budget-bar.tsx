import type { TaskView } from "@/components/task/wire";
import { formatAmount as amount } from "@/lib/tasks/model";

// A task's spend against its budget (docs/budgets.md): spent / limit as a bar, amber from the
// 80 % warning, red at the limit. The numbers are the engine's (the task object's `budget` and
// `spent`), so the bar moves with every heartbeat that reports spend.


export function BudgetBar({ task, compact = false }: { task: Pick<TaskView, "budget" | "spent">; compact?: boolean }) {
  if (!task.budget) return null;
  const { limit, unit } = task.budget;
  const share = Math.min(1, task.spent / limit);
  const tone = task.spent >= limit ? "bg-red-600" : share >= 0.8 ? "bg-amber-500" : "bg-emerald-600";
  const label = `${amount(task.spent)} of ${amount(limit)} ${unit} spent`;
  return (
    <div className={compact ? "mt-1" : "flex min-w-48 flex-col gap-0.5"} data-testid="budget-bar" data-spent={task.spent} data-limit={limit}>
      {compact ? null : <span className="text-xs text-slate-700">Budget: {label}</span>}
      <div
        role="meter" aria-label="Budget" aria-valuemin={0} aria-valuemax={limit} aria-valuenow={Math.min(task.spent, limit)} aria-valuetext={label}
        title={label}
        className={`${compact ? "h-1" : "h-2"} w-full overflow-hidden rounded bg-slate-200`}
      >
        <div className={`h-full ${tone}`} style={{ width: `${Math.round(share * 100)}%` }} />
      </div>
    </div>
  );
}
