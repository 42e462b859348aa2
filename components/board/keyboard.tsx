"use client";

import { press, useShortcuts } from "@/components/ui/shortcuts";

export const SEARCH_ID = "board-search";

export const KEYS: [string, string][] = [
  ["/", "Search the board"],
  ["j", "Next task"],
  ["k", "Previous task"],
  ["Enter", "Open the task"],
  ["c", "Claim the task"],
  ["s", "Start the task"],
  ["?", "Show these keys"],
  ["Esc", "Close a dialog"],
];

const items = () => [...document.querySelectorAll<HTMLElement>("[data-board-item]")].filter((el) => el.offsetParent !== null);
const current = () => (document.activeElement as HTMLElement | null)?.closest<HTMLElement>("[data-board-item]") ?? null;

/**
 * The task moves to another column (or group) when claimed or started, and its element is
 * replaced: focus follows it there, so `c` then `s` works on the same task.
 */
function refocus(id: string) {
  let tries = 0;
  const again = () => {
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    // The first one shown: on a wide screen the phone's "Your tasks" copy is hidden.
    const next = items().find((el) => el.dataset.taskId === id);
    if (next) next.focus();
    else if (tries++ < 40) setTimeout(again, 50);
  };
  setTimeout(again, 50);
}

/**
 * The board's keys (Linear's): `/` search, `j`/`k` move between cards or rows, `Enter`
 * opens, `c` claims, `s` starts, `?` lists them (components/ui/shortcuts.tsx). Not while
 * typing in a field or while a dialog is open.
 */
export function BoardKeys() {
  return useShortcuts(KEYS, (event) => {
    const item = current();
    if (event.key === "/") {
      document.getElementById(SEARCH_ID)?.focus();
      return true;
    }
    if (event.key === "j" || event.key === "k") {
      const all = items();
      if (all.length === 0) return false;
      const at = item ? all.indexOf(item) : -1;
      const next = event.key === "j" ? (at < 0 ? 0 : Math.min(at + 1, all.length - 1)) : at < 0 ? 0 : Math.max(at - 1, 0);
      all[next]!.focus();
      all[next]!.scrollIntoView({ block: "nearest" });
      return true;
    }
    if (event.key === "Enter" && item && document.activeElement === item) {
      item.querySelector<HTMLAnchorElement>('a[href^="/tasks/"]')?.click();
      return true;
    }
    if ((event.key === "c" || event.key === "s") && item) {
      const id = item.dataset.taskId;
      if (press(item, event.key === "c" ? "Claim" : "Start") && id) {
        refocus(id);
        return true;
      }
    }
    return false;
  });
}
