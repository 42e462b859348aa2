"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import { Button, buttonClass } from "./button";

/** What an empty state offers: a link, a click, or focus on the form that fills the list. */
export type EmptyAction = { label: string } & ({ href: string } | { onClick: () => void } | { focus: string });

/**
 * An empty list says what it is and names the action that fills it (issue 27 item 10):
 * "No schedules yet … [Create a schedule]", never a bare "Nothing here".
 */
export function EmptyState({ children, action, testId }: { children: ReactNode; action?: EmptyAction; testId?: string }) {
  return (
    <div data-testid={testId ?? "empty-state"} className="flex flex-wrap items-center gap-3 rounded-lg border border-dashed border-slate-300 bg-white px-3 py-2.5 text-sm text-slate-700">
      <p className="min-w-0 flex-1 basis-64">{children}</p>
      {action && "href" in action ? (
        <Link href={action.href} className={buttonClass("secondary", "sm")}>
          {action.label}
        </Link>
      ) : action ? (
        <Button
          size="sm"
          onClick={() => {
            if ("onClick" in action) return action.onClick();
            const target = document.querySelector<HTMLElement>(action.focus);
            target?.scrollIntoView({ block: "center" });
            target?.focus();
          }}
        >
          {action.label}
        </Button>
      ) : null}
    </div>
  );
}
