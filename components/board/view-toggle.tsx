"use client";

import { viewCookie, type BoardView } from "@/components/task/filters";
import { buttonClass } from "@/components/ui/button";

function rememberView(actorId: string, view: BoardView): void {
  document.cookie = `${viewCookie(actorId)}=${view}; path=/; max-age=31536000; samesite=lax`;
}

/**
 * Columns or a dense list. The choice goes in the URL (shareable, Back undoes it; the
 * filters bar's `onChoose` pushes it with the rest of the board's state) and in a cookie
 * per person, so the server renders the remembered view on the next visit: no flash of
 * the other one.
 */
export function ViewToggle({ view, actorId, onChoose }: { view: BoardView; actorId: string; onChoose: (view: BoardView) => void }) {
  return (
    <div role="group" aria-label="View" className="inline-flex rounded-md">
      {(["columns", "list"] as const).map((option) => (
        <button
          key={option}
          type="button"
          aria-pressed={view === option}
          onClick={() => {
            rememberView(actorId, option);
            onChoose(option);
          }}
          className={`${buttonClass(view === option ? "primary" : "secondary", "sm")} ${option === "columns" ? "rounded-r-none" : "-ml-px rounded-l-none"}`}
        >
          {option === "columns" ? "Columns" : "List"}
        </button>
      ))}
    </div>
  );
}
