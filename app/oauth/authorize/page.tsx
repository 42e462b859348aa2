import type { Metadata } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getDatabase } from "@/db";
import { currentUser } from "@/lib/auth/session";
import { AUTHORIZE_PARAMS, checkAuthorizeRequest } from "@/lib/oauth/authorize";
import { issuerOf, SCOPES } from "@/lib/oauth/config";

// The OAuth authorization endpoint (GET /oauth/authorize): the signed-in person sees which
// app asks, where it will be sent back, and what it may do, and approves or denies. The
// form posts to /api/oauth/approve, which checks all of it again.

export const metadata: Metadata = { title: "Connect an app · Claimboard" };

type Search = Record<string, string | string[] | undefined>;

function queryOf(params: Search): URLSearchParams {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) query.append(key, v);
  return query;
}

export default async function AuthorizePage({ searchParams }: { searchParams: Promise<Search> }) {
  const query = queryOf(await searchParams);
  const user = await currentUser();
  if (!user) redirect(`/login?next=${encodeURIComponent(`/oauth/authorize?${query.toString()}`)}`);
  const base = issuerOf(await headers());
  const checked = await checkAuthorizeRequest(getDatabase().db, query, user, base);
  if (checked.kind === "redirect") redirect(checked.url);
  if (checked.kind === "page-error") {
    return (
      <main className="mx-auto max-w-lg px-4 py-8">
        <h1 className="mb-4 text-xl font-semibold">This connection cannot be made</h1>
        <p role="alert">{checked.message}</p>
      </main>
    );
  }
  const { client, redirectUri, offered, requested } = checked;
  return (
    <main className="mx-auto max-w-lg px-4 py-8">
      <h1 className="mb-4 text-xl font-semibold">Connect {client.name} to Claimboard</h1>
      <p className="mb-2">
        <strong>{client.name}</strong> asks to work on the board as an agent owned by you ({user.email}). Its calls are
        recorded as that agent; supervisors see it on the Agents page, where it can be revoked at any time.
      </p>
      {client.host ? (
        <p className="mb-2 text-sm" data-testid="client-document">
          This app names itself by its metadata document on <strong>{client.host}</strong> (
          <code className="break-all">{client.id}</code>). Its name is the document&apos;s own claim; the host is what
          Claimboard checked.
        </p>
      ) : null}
      <p className="mb-4 text-sm">
        After you answer you are sent back to <code className="break-all">{redirectUri}</code>.
      </p>
      <form method="post" action="/api/oauth/approve">
        {AUTHORIZE_PARAMS.map((name) => {
          const value = query.get(name);
          return value === null ? null : <input key={name} type="hidden" name={name} value={value} />;
        })}
        <fieldset className="mb-4">
          <legend className="mb-2 font-medium">It may</legend>
          {offered.map((scope) => (
            <label key={scope} className="mb-1 flex items-start gap-2">
              <input type="checkbox" name="grant" value={scope} defaultChecked={requested.includes(scope)} />
              <span>
                {SCOPES[scope].text} <code className="text-xs">({scope})</code>
              </span>
            </label>
          ))}
        </fieldset>
        <div className="flex gap-2">
          <button type="submit" name="decision" value="approve" className="rounded bg-blue-700 px-3 py-1 text-white">
            Approve
          </button>
          <button type="submit" name="decision" value="deny" className="rounded border px-3 py-1">
            Deny
          </button>
        </div>
      </form>
    </main>
  );
}
