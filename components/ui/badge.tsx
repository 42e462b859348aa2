import type { ReactNode } from "react";

export type BadgeTone = "slate" | "blue" | "amber" | "green" | "red" | "violet";

const tones: Record<BadgeTone, string> = {
  slate: "bg-slate-100 text-slate-700 ring-slate-300",
  blue: "bg-blue-50 text-blue-800 ring-blue-300",
  amber: "bg-amber-50 text-amber-900 ring-amber-400",
  green: "bg-green-50 text-green-800 ring-green-300",
  red: "bg-red-50 text-red-800 ring-red-300",
  violet: "bg-violet-50 text-violet-800 ring-violet-300",
};

export function Badge({ tone = "slate", children, title }: { tone?: BadgeTone; children: ReactNode; title?: string }) {
  return (
    <span title={title} className={`inline-flex items-center rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${tones[tone]}`}>
      {children}
    </span>
  );
}
