"use client";

import { useEffect, useId, useRef, type ReactNode } from "react";
import { Button } from "./button";

/**
 * A modal built on the native <dialog>: focus moves in and is trapped by the browser,
 * Escape asks the parent to close it (onClose), and focus returns to the opener when it
 * closes (or unmounts).
 * `side` makes it a drawer: a panel the height of the screen at the right (the whole width
 * of a phone), with a close button in its heading, for content longer than a question.
 */
export function Dialog({
  open,
  onClose,
  title,
  children,
  side = false,
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  children: ReactNode;
  side?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  // Set while this component closes the dialog itself: the close event that follows is its own.
  const closing = useRef(false);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog || !open) return;
    closing.current = false;
    // Remembered here because the dialog may be unmounted rather than closed.
    const opener = document.activeElement as HTMLElement | null;
    if (!dialog.open) dialog.showModal();
    // The browser focuses the first focusable element (a drawer's ✕); a form's first field
    // marked data-autofocus takes it instead (React's autoFocus runs before showModal).
    dialog.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    return () => {
      closing.current = true;
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, [open]);
  const placement = side
    ? "my-0 mr-0 ml-auto h-dvh max-h-none w-[min(36rem,100vw)] max-w-none overflow-y-auto rounded-none sm:rounded-l-lg"
    : "m-auto w-[min(32rem,calc(100vw-2rem))] rounded-lg";
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      // Escape is a request the parent answers: the browser would close the dialog itself and
      // report it in a close event one task later — after an Enter that reopened it, when
      // keys come fast, so that the late event shut the new one. Closed by the parent
      // instead, in the same keypress, nothing is left for a late event to undo.
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClose={(event) => {
        // Only a close nobody asked for (none is expected) is reported; one that arrives after
        // the dialog was opened again is stale.
        if (!closing.current && !event.currentTarget.open) onClose();
      }}
      className={`${placement} bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-900/40`}
    >
      {open ? (
        <div className="p-5">
          <div className="flex items-start justify-between gap-3">
            <h2 id={titleId} className="text-lg font-semibold wrap-anywhere">
              {title}
            </h2>
            {side ? (
              <Button size="sm" tone="ghost" onClick={onClose} aria-label="Close">
                ✕
              </Button>
            ) : null}
          </div>
          <div className="mt-3">{children}</div>
        </div>
      ) : null}
    </dialog>
  );
}
