import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { LoginForm } from "@/components/auth/login-form";
import { currentUser } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Sign in · Claimboard" };

/** Only same-site paths: a `next` pointing elsewhere would make this an open redirect. */
function safeNext(value: string | string[] | undefined): string {
  const next = Array.isArray(value) ? value[0] : value;
  return next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/";
}

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
  return (
    <main className="flex min-h-screen items-start justify-center px-4 pt-[12vh]">
      <div className="w-full max-w-sm rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
        <h1 className="text-xl font-semibold">Sign in to Claimboard</h1>
        <p className="mt-1 mb-5 text-sm text-slate-600">The shared task board people and agents claim work from.</p>
        <LoginForm next={next} sso={ssoLabel()} initialError={error} />
      </div>
    </main>
  );
}
