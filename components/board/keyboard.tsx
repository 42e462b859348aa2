"use client";

import { useEffect, useState } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";

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

/** Typing, or anything with a modifier, is never a board key. */
function ignored(event: KeyboardEvent): boolean {
  if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return true;
  const target = event.target as HTMLElement | null;
  if (!target) return false;
  if (target.isContentEditable || target.closest("input, textarea, select, [contenteditable]")) return true;
  return !!document.querySelector("dialog[open]");
}

const items = () => [...document.querySelectorAll<HTMLElement>("[data-board-item]")].filter((el) => el.offsetParent !== null);
const current = () => (document.activeElement as HTMLElement | null)?.closest<HTMLElement>("[data-board-item]") ?? null;

function press(item: HTMLElement, label: string): boolean {
  const button = [...item.querySelectorAll<HTMLButtonElement>("button")].find((b) => b.textContent?.trim() === label && !b.disabled);
  button?.click();
  return !!button;
}

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
 * opens, `c` claims, `s` starts, `?` lists them. Not while typing in a field or while a
 * dialog is open.
 */
export function BoardKeys() {
  const [help, setHelp] = useState(false);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (ignored(event)) return;
      const item = current();
      if (event.key === "/") {
        event.preventDefault();
        document.getElementById(SEARCH_ID)?.focus();
      } else if (event.key === "?") {
        event.preventDefault();
        setHelp(true);
      } else if (event.key === "j" || event.key === "k") {
        const all = items();
        if (all.length === 0) return;
        event.preventDefault();
        const at = item ? all.indexOf(item) : -1;
        const next = event.key === "j" ? (at < 0 ? 0 : Math.min(at + 1, all.length - 1)) : at < 0 ? 0 : Math.max(at - 1, 0);
        all[next]!.focus();
        all[next]!.scrollIntoView({ block: "nearest" });
      } else if (event.key === "Enter" && item && document.activeElement === item) {
        event.preventDefault();
        item.querySelector<HTMLAnchorElement>('a[href^="/tasks/"]')?.click();
      } else if ((event.key === "c" || event.key === "s") && item) {
        const id = item.dataset.taskId;
        if (press(item, event.key === "c" ? "Claim" : "Start") && id) {
          event.preventDefault();
          refocus(id);
        }
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
  return (
    <>
      <Button size="sm" tone="ghost" className="max-sm:hidden" onClick={() => setHelp(true)} aria-keyshortcuts="?">
        Keys <kbd className="rounded border border-slate-300 px-1 text-xs">?</kbd>
      </Button>
      <Dialog open={help} onClose={() => setHelp(false)} title="Keyboard shortcuts">
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1.5 text-sm" data-testid="keys">
          {KEYS.map(([key, what]) => (
            <div key={key} className="contents">
              <dt>
                <kbd className="rounded border border-slate-300 bg-slate-50 px-1.5 py-0.5 font-mono text-xs">{key}</kbd>
              </dt>
              <dd>{what}</dd>
            </div>
          ))}
        </dl>
        <p className="mt-3 text-xs text-slate-600">Not while typing in a field. Tab and Enter reach everything too.</p>
        <div className="mt-4 flex justify-end">
          <Button onClick={() => setHelp(false)}>Close</Button>
        </div>
      </Dialog>
    </>
  );
}
