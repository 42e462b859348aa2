"use client";

import { useId, useState, type ChangeEvent, type ComponentProps, type ReactNode } from "react";
import { limitText } from "@/lib/limits";
import { focusRing } from "./button";

export const controlClass = `block w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm text-slate-900 aria-[invalid=true]:border-red-700 ${focusRing}`;

/**
 * What every field may say under itself (issue 27 item 10): a hint, a character count
 * against a limit (never a silent maxLength: a paste that is too long stays whole, is
 * counted, and the form says what to cut), and an error in the app's words. The control
 * is described by all three and marked invalid while there is an error or too much text.
 * Forms using these set `noValidate`: the browser's own bubbles never show.
 */
interface Said {
  label: string;
  hint?: string;
  /** The form's sentence about this field (shown until the form clears it). */
  error?: string | null;
  /** The most characters the field takes: a "12 / 200" count under it. */
  limit?: number;
}

interface ControlProps {
  id: string;
  "aria-describedby"?: string;
  "aria-invalid"?: true;
}

function Labelled({ label, hint, error, limit, length, describedBy, invalid, children }: Said & {
  length: number;
  describedBy?: string;
  invalid?: boolean | "true" | "false" | "grammar" | "spelling";
  children: (control: ControlProps) => ReactNode;
}) {
  const id = useId();
  const over = limit !== undefined && length > limit;
  const ids = [describedBy, error ? `${id}-error` : null, limit !== undefined ? `${id}-count` : null, hint ? `${id}-hint` : null].filter(Boolean).join(" ");
  const bad = !!error || over || invalid === true || invalid === "true";
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium text-slate-700">
        {label}
      </label>
      {children({ id, ...(ids ? { "aria-describedby": ids } : {}), ...(bad ? { "aria-invalid": true } : {}) })}
      {error ? (
        <p id={`${id}-error`} data-testid="field-error" className="text-sm text-red-800">
          {error}
        </p>
      ) : null}
      {hint || limit !== undefined ? (
        <div className="flex items-start justify-between gap-3">
          {hint ? (
            <p id={`${id}-hint`} className="text-xs text-slate-600">
              {hint}
            </p>
          ) : (
            <span />
          )}
          {limit !== undefined ? (
            <p id={`${id}-count`} data-testid="char-count" className={`shrink-0 text-xs tabular-nums ${over ? "font-medium text-red-800" : "text-slate-600"}`}>
              {limitText(length)} / {limitText(limit)}
              {/* Said once as it crosses the limit, not on every key. */}
              {over ? <span role="status">: {limitText(length - limit)} too many</span> : null}
            </p>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

/** The length of a field's text: its value when controlled, else what was typed since. */
function useLength(value: unknown, initial: unknown): [number, (event: { target: { value: string } }) => void] {
  const [typed, setTyped] = useState(String(initial ?? "").length);
  return [value !== undefined && value !== null ? String(value).length : typed, (event) => setTyped(event.target.value.length)];
}

type Own<T> = Omit<T, "aria-invalid" | "aria-describedby"> & Said & { "aria-invalid"?: boolean | "true" | "false"; "aria-describedby"?: string };

export function TextField({ label, hint, error, limit, onChange, "aria-invalid": invalid, "aria-describedby": describedBy, ...props }: Own<ComponentProps<"input">>) {
  const [length, track] = useLength(props.value, props.defaultValue);
  return (
    <Labelled label={label} hint={hint} error={error} limit={limit} length={length} describedBy={describedBy} invalid={invalid}>
      {(control) => (
        <input
          className={controlClass}
          {...props}
          {...control}
          onChange={(event: ChangeEvent<HTMLInputElement>) => {
            track(event);
            onChange?.(event);
          }}
        />
      )}
    </Labelled>
  );
}

export function TextArea({ label, hint, error, limit, onChange, "aria-invalid": invalid, "aria-describedby": describedBy, ...props }: Own<ComponentProps<"textarea">>) {
  const [length, track] = useLength(props.value, props.defaultValue);
  return (
    <Labelled label={label} hint={hint} error={error} limit={limit} length={length} describedBy={describedBy} invalid={invalid}>
      {(control) => (
        <textarea
          className={controlClass}
          rows={3}
          {...props}
          {...control}
          onChange={(event: ChangeEvent<HTMLTextAreaElement>) => {
            track(event);
            onChange?.(event);
          }}
        />
      )}
    </Labelled>
  );
}

export function SelectField({ label, hint, error, children, "aria-invalid": invalid, "aria-describedby": describedBy, ...props }: Own<ComponentProps<"select">>) {
  return (
    <Labelled label={label} hint={hint} error={error} length={0} describedBy={describedBy} invalid={invalid}>
      {(control) => (
        <select className={controlClass} {...props} {...control}>
          {children}
        </select>
      )}
    </Labelled>
  );
}

/**
 * After a refused submit, focus the first field marked invalid (once React has drawn the
 * errors), so a screen reader reads its sentence and a person starts fixing where it is.
 */
export function focusFirstInvalid(form: HTMLFormElement | null): void {
  requestAnimationFrame(() => form?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
}
