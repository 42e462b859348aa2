"use client";

import { useEffect, useRef, useState } from "react";
import { Button } from "./button";
import { Dialog } from "./dialog";

// The app's keyboard shortcuts, one mechanism for every page that has them (the board's,
// the task page's): single keys without a modifier, never while typing in a field or while
// a dialog is open, and `?` opening the list of the page's keys.

/** Typing, or anything with a modifier, is never a shortcut. */
export function ignored(event: KeyboardEvent): boolean {
  if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return true;
  const target = event.target as HTMLElement | null;
  if (!target) return false;
  if (target.isContentEditable || target.closest("input, textarea, select, [contenteditable]")) return true;
  return !!document.querySelector("dialog[open]");
}

/** Clicks the enabled button inside `scope` whose text is `label`; false when there is none. */
export function press(scope: ParentNode | null, label: string): boolean {
  const button = [...(scope?.querySelectorAll<HTMLButtonElement>("button") ?? [])].find((b) => b.textContent?.trim() === label && !b.disabled);
  button?.click();
  return !!button;
}

/**
 * Listens for the page's keys; `onKey` answers true when it used the key (the browser's
 * default is then prevented). `?` opens the help, which the returned element draws along
 * with a "Keys ?" button.
 */
export function useShortcuts(keys: readonly (readonly [string, string])[], onKey: (event: KeyboardEvent) => boolean) {
  const [help, setHelp] = useState(false);
  const handler = useRef(onKey);
  useEffect(() => {
    handler.current = onKey;
  });
  useEffect(() => {
    const listen = (event: KeyboardEvent) => {
      if (ignored(event)) return;
      if (event.key === "?") {
        event.preventDefault();
        setHelp(true);
      } else if (handler.current(event)) {
        event.preventDefault();
      }
    };
    document.addEventListener("keydown", listen);
    return () => document.removeEventListener("keydown", listen);
  }, []);
  return (
    <>
      <Button size="sm" tone="ghost" className="max-sm:hidden" onClick={() => setHelp(true)} aria-keyshortcuts="?">
        Keys <kbd className="rounded border border-slate-300 px-1 text-xs">?</kbd>
      </Button>
      <Dialog open={help} onClose={() => setHelp(false)} title="Keyboard shortcuts">
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1.5 text-sm" data-testid="keys">
          {keys.map(([key, what]) => (
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
