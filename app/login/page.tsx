import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { LoginForm } from "@/components/auth/login-form";
import { getDatabase } from "@/db";
import { safeNext } from "@/lib/auth/next-path";
import { currentUser } from "@/lib/auth/session";
import { RESET_LINK_HOURS } from "@/lib/auth/reset-link";
import { demoLoginsFile, demoLoginsHint } from "./demo-hint";

export const metadata: Metadata = { title: "Sign in · Claimboard" };

/** The single sign-on button shows only when the OIDC provider is configured (lib/auth/options.ts). */
function ssoLabel(): string | null {
  const { OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_NAME } = process.env;
  return OIDC_ISSUER && OIDC_CLIENT_ID && OIDC_CLIENT_SECRET ? (OIDC_NAME ?? "Single sign-on") : null;
}

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const next = safeNext(params.next ?? params.callbackUrl);
  if (await currentUser()) redirect(next);
  const error = Array.isArray(params.error) ? params.error[0] : params.error;
  const demo = await demoLoginsHint(getDatabase().db);
  return (
    <main className="flex min-h-screen items-start justify-center px-4 pt-[12vh]">
      <div className="w-full max-w-sm rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
        <h1 className="text-xl font-semibold">Sign in to Claimboard</h1>
        <p className="mt-1 mb-5 text-sm text-slate-600">The shared task board people and agents claim work from.</p>
        <LoginForm next={next} sso={ssoLabel()} initialError={error} />
        <details data-testid="forgot-password" className="mt-4 text-sm text-slate-700">
          <summary className="cursor-pointer font-medium text-blue-800 underline underline-offset-2">Forgot your password?</summary>
          <p className="mt-1">
            Ask a supervisor for a reset link: on <strong>People</strong> they choose <strong>Reset link</strong> beside your name and
            hand it to you. It works once, for {RESET_LINK_HOURS} hours.
          </p>
          <p className="mt-1">
            A supervisor with nobody to ask: on the server, run <code className="break-all">npm run cli -- user reset-link --email you@example.com</code>.
          </p>
        </details>
        {demo ? (
          <aside aria-labelledby="demo-logins" data-testid="demo-logins" className="mt-5 rounded-md border border-blue-200 bg-blue-50 p-3 text-sm text-blue-950">
            <h2 id="demo-logins" className="font-semibold">Trying the demo?</h2>
            <p className="mt-1">This board was started with demo accounts:</p>
            <ul className="mt-1 list-inside list-disc">
              {demo.map((person) => (
                <li key={person.email}>
                  <span className="font-mono">{person.email}</span> ({person.role})
                </li>
              ))}
            </ul>
            <p className="mt-1">
              Their passwords were printed when <code>npm start</code> first ran, and are in <code className="break-all">{demoLoginsFile()}</code> in the server&apos;s data folder.
            </p>
          </aside>
        ) : null}
      </div>
    </main>
  );
}
