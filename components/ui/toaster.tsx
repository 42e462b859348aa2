"use client";

import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from "react";
import { Button } from "./button";

/**
 * A button on a toast: Undo, say. Offer one only where it is a real move that takes the
 * first one back (docs/board.md "Undo"): the toast never pretends.
 */
export interface ToastAction {
  label: string;
  /** The accessible name, when the label alone is not enough ("Undo: resume triage"). */
  name?: string;
  run: () => void;
}

export interface Toast {
  id: number;
  tone: "info" | "error";
  text: ReactNode;
  action?: ToastAction;
}

interface ToastApi {
  notify(tone: Toast["tone"], text: ReactNode, action?: ToastAction): void;
}

const ToastContext = createContext<ToastApi>({ notify: () => {} });

export const useToast = () => useContext(ToastContext);

const MAX_TOASTS = 4;
const INFO_MS = 6000;
/** A toast with a button stays longer: reading it and reaching the button takes a moment. */
const ACTION_MS = 12_000;

/**
 * Notices that outlive the component that raised them (a card that moved to another
 * column, say). Errors stay until dismissed — a conflict is worth reading; info fades.
 */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((t) => t.id !== id)), []);
  const notify = useCallback(
    (tone: Toast["tone"], text: ReactNode, action?: ToastAction) => {
      const id = Date.now() + Math.random();
      setToasts((all) => [...all, { id, tone, text, ...(action ? { action } : {}) }].slice(-MAX_TOASTS));
      if (tone === "info") setTimeout(() => dismiss(id), action ? ACTION_MS : INFO_MS);
    },
    [dismiss],
  );
  const api = useMemo(() => ({ notify }), [notify]);
  return (
    <ToastContext.Provider value={api}>
      {children}
      <div className="pointer-events-none fixed inset-x-0 bottom-0 z-50 flex flex-col items-center gap-2 p-3 sm:items-end">
        {toasts.map((toast) => (
          <div
            key={toast.id}
            role={toast.tone === "error" ? "alert" : "status"}
            className={`pointer-events-auto flex w-full max-w-md items-start gap-3 rounded-md border px-3 py-2 text-sm shadow-md ${
              toast.tone === "error" ? "border-red-300 bg-red-50 text-red-900" : "border-slate-300 bg-white text-slate-900"
            }`}
          >
            <div className="flex-1">{toast.text}</div>
            {toast.action ? (
              <Button
                size="sm"
                aria-label={toast.action.name}
                onClick={() => {
                  dismiss(toast.id);
                  toast.action!.run();
                }}
              >
                {toast.action.label}
              </Button>
            ) : null}
            <Button size="sm" tone="ghost" onClick={() => dismiss(toast.id)} aria-label="Dismiss">
              ✕
            </Button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
