"use client";

import { signIn } from "next-auth/react";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { useHydrated } from "@/components/ui/local-time";
import { safeNext } from "@/lib/auth/next-path";

const problems: Record<string, string> = {
  CredentialsSignin: "Wrong email or password.",
  AccessDenied: "That single sign-on account has no Claimboard account. Ask a supervisor to add you.",
  // lib/auth/options.ts: an account is linked only by an address the provider verified.
  EmailUnverified: "Your single sign-on provider has not verified that email address, so it cannot sign you in here. Verify it there, or ask a supervisor.",
  SessionRequired: "Please sign in to carry on.",
  // lib/auth/login-throttle.ts: the account (or address) failed too often in the window.
  TooManyAttempts: "Too many failed sign-ins. Try again later (up to 15 minutes), or ask a supervisor.",
  // lib/auth/password-reset.ts, through lib/auth/options.ts.
  ResetInvalid: "This reset link does not work any more (used, replaced by a newer one, or older than a day). Ask a supervisor for a new one.",
  ResetPassword: "Choose a password of at least 8 characters.",
};

function sentence(code: string | undefined | null): string | null {
  if (!code) return null;
  return problems[code] ?? "Signing in didn't work. Try again, or ask a supervisor.";
}

/** Email and password through next-auth (no redirect, so a wrong password is said here). */
export function LoginForm({ next, sso, initialError }: { next: string; sso: string | null; initialError?: string }) {
  // Uncontrolled fields, read on submit: what is typed before the page hydrates survives it.
  // The button waits for hydration: a native submit would put the password in the URL.
  const hydrated = useHydrated();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(sentence(initialError));

  // A reset link is /login#reset=<secret>: the fragment never reaches a server or a log.
  const resetToken = hydrated ? (/^#reset=([A-Za-z0-9_-]{20,100})$/.exec(window.location.hash)?.[1] ?? null) : null;

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get("email") ?? "");
    const password = String(form.get("password") ?? "");
    setBusy(true);
    setError(null);
    const credentials = resetToken ? { resetToken, password } : { email, password };
    const result = await signIn("credentials", { ...credentials, redirect: false }).catch(() => null);
    if (result?.ok && !result.error) {
      window.location.assign(safeNext(next));
      return;
    }
    setBusy(false);
    setError(result ? sentence(result.error ?? "unknown") : "Couldn't reach the server. Check your connection and try again.");
  };

  return (
    <div className="space-y-4">
      <form onSubmit={submit} className="space-y-4" aria-describedby={error ? "login-error" : undefined}>
        {resetToken ? (
          <p className="text-sm text-slate-700">A supervisor gave you this link to set a new password. It works once.</p>
        ) : (
          <TextField label="Email" type="email" name="email" autoComplete="username" required />
        )}
        <TextField
          label={resetToken ? "New password" : "Password"}
          type="password"
          name="password"
          autoComplete={resetToken ? "new-password" : "current-password"}
          hint={resetToken ? "At least 8 characters" : undefined}
          required
        />
        {error ? (
          <p id="login-error" role="alert" className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900">
            {error}
          </p>
        ) : null}
        <Button type="submit" tone="primary" className="w-full" disabled={busy || !hydrated}>
          {busy ? "Signing in…" : resetToken ? "Set password and sign in" : "Sign in"}
        </Button>
      </form>
      {sso ? (
        <>
          <p className="text-center text-xs text-slate-500">or</p>
          <Button className="w-full" onClick={() => void signIn("oidc", { callbackUrl: safeNext(next) })}>
            {sso}
          </Button>
        </>
      ) : null}
    </div>
  );
}
