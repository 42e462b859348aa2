"use client";

import { useState, type FormEvent } from "react";
import { changeOwnPasswordAction } from "@/app/account/actions";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";

/** Change one's own password: the current one first (lib/auth/password-reset.ts changeOwnPassword). */
export function ChangePassword() {
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const password = String(form.get("password") ?? "");
    if (password !== String(form.get("again") ?? "")) return setSaid({ tone: "error", text: "The two new passwords differ." });
    setBusy(true);
    setSaid(null);
    const result = await changeOwnPasswordAction({ current: String(form.get("current") ?? ""), password }).catch(() => null);
    setBusy(false);
    if (result?.ok) {
      formElement.reset();
      return setSaid({ tone: "ok", text: "Your password is changed. Use it the next time you sign in." });
    }
    const field = result && !result.ok ? result.error.field : undefined;
    setSaid({
      tone: "error",
      text: field === "current" ? "That is not your current password."
        : field === "password" && result && !result.ok && /differ/.test(result.error.message) ? "Choose a new password that differs from the current one."
        : field === "password" ? "Choose a new password of at least 8 characters."
        : result && !result.ok && result.error.code === "rate_limited" ? "Too many wrong current passwords; wait a while and try again."
        : "Couldn't change the password. Try again.",
    });
  };
  return (
    <form onSubmit={submit} aria-label="Change your password" className="mt-6 space-y-4 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <h2 className="font-semibold">Change your password</h2>
      <TextField name="current" type="password" label="Current password" autoComplete="current-password" required />
      <TextField name="password" type="password" label="New password" hint="At least 8 characters" autoComplete="new-password" required />
      <TextField name="again" type="password" label="New password again" autoComplete="new-password" required />
      {said ? (
        <p role={said.tone === "error" ? "alert" : "status"} className={said.tone === "error" ? "text-sm text-red-800" : "text-sm text-green-800"}>
          {said.text}
        </p>
      ) : null}
      <Button type="submit" tone="primary" disabled={busy}>
        {busy ? "Changing…" : "Change password"}
      </Button>
    </form>
  );
}
