import { readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { createUser } from "@/lib/auth/users";
import { httpFixture, type HttpFixture } from "@/test/http/helpers";

// The attack suites' shared tools: a server whose secrets are remembered so its log can be
// searched for them at the end, sign-in over plain HTTP (next-auth's credentials flow, no
// browser), server actions posted by id, and a digest of every table a refusal must not touch.

export interface AttackFixture extends HttpFixture {
  /** Remembers a secret (token, password, cookie) that must never reach the server's log. */
  secret<T extends string>(value: T): T;
  /** A person with an account; the password is remembered as a secret. */
  person(email: string, role: "staff" | "supervisor", password?: string): Promise<{ email: string; password: string; actorId: string }>;
  /** Fails when the server's output so far holds any remembered secret. */
  expectCleanLogs(): void;
}

export async function attackFixture(env: Record<string, string> = {}): Promise<AttackFixture> {
  const f = await httpFixture(env);
  const secrets = new Set<string>();
  const secret = <T extends string>(value: T) => (secrets.add(value), value);
  return {
    ...f,
    secret,
    token: async (name, role) => secret(await f.token(name, role)),
    async person(email, role, password = `pw-${Math.random().toString(36).slice(2)}-${email}`) {
      const account = await createUser(f.database.db, { email, name: email.split("@")[0]!, role, password: secret(password) });
      return { email, password, actorId: account.actor.id };
    },
    expectCleanLogs() {
      const output = f.server.output();
      const found = [...secrets].filter((s) => output.includes(s) || (s.startsWith("cb_") && output.includes(s.slice(3))));
      expect(found.map((s) => `${s.slice(0, 8)}…`), "secrets in the server's log").toEqual([]);
      console.log(`[logs] ${secrets.size} secrets, ${output.length} bytes of server output, none found`);
    },
  };
}

// ---------------------------------------------------------------------------------------
// Signing in over HTTP

const cookiePairs = (response: Response) => response.headers.getSetCookie().map((c) => c.split(";")[0]!);

export interface SignInResult {
  status: number;
  /** The `url` next-auth answers with (its `error` parameter says why on failure). */
  url: string;
  /** The session cookie (`name=value`), or null when sign-in failed. */
  session: string | null;
  /** Every cookie the sign-in answer set (`name=value`). */
  cookies: string[];
}

/** next-auth's credentials flow as its client does it: CSRF token, then the callback. */
export async function signInOverHttp(base: string, email: string, password: string, headers: Record<string, string> = {}): Promise<SignInResult> {
  const csrf = await fetch(`${base}/api/auth/csrf`, { headers });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await fetch(`${base}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded", cookie: [headers.cookie, ...cookiePairs(csrf)].filter(Boolean).join("; ") },
    body: new URLSearchParams({ csrfToken, email, password, json: "true", callbackUrl: `${base}/` }),
  });
  const body = (await response.json().catch(() => ({}))) as { url?: string };
  const session = cookiePairs(response).find((c) => c.startsWith("next-auth.session-token=") && c.length > 30) ?? null;
  return { status: response.status, url: body.url ?? "", session, cookies: cookiePairs(response) };
}

export async function mustSignIn(f: AttackFixture, email: string, password: string): Promise<string> {
  const result = await signInOverHttp(f.server.url, email, password);
  expect(result.session, `sign-in of ${email}: ${result.url}`).not.toBeNull();
  return f.secret(result.session!);
}

// ---------------------------------------------------------------------------------------
// Server actions

export interface ManifestAction {
  id: string;
  exportedName: string;
  filename: string;
  /** A page path that has the action in its bundle, to post to. */
  page: string;
}

/** Every server action of the build the servers run, from Next.js's own manifest. */
export function manifestActions(): ManifestAction[] {
  const manifest = JSON.parse(readFileSync(path.resolve(".next/server/server-reference-manifest.json"), "utf8")) as {
    node: Record<string, { exportedName?: string; filename?: string; workers: Record<string, unknown> }>;
  };
  return Object.entries(manifest.node).map(([id, entry]) => {
    const worker = Object.keys(entry.workers).sort((a, b) => a.length - b.length)[0]!;
    const page = worker.replace(/^app/, "").replace(/\/page$/, "").replace(/\[[^\]]+\]/g, "1") || "/";
    return { id, exportedName: entry.exportedName ?? "?", filename: entry.filename ?? "?", page };
  });
}

export interface ActionAnswer {
  status: number;
  text: string;
  /** The action's return value when the answer carries one. */
  result: { ok: boolean; value?: unknown; error?: { code: string; message: string } } | null;
  /** Every cookie the answer set (`name=value`). */
  cookies: string[];
}

/** Posts a server action as the browser does: the id in Next-Action, the arguments as JSON. */
export async function callAction(
  base: string,
  action: ManifestAction,
  args: unknown[],
  options: { cookie?: string | null; headers?: Record<string, string>; body?: BodyInit } = {},
): Promise<ActionAnswer> {
  const response = await fetch(`${base}${action.page}`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Next-Action": action.id,
      "Content-Type": "text/plain;charset=UTF-8",
      Accept: "text/x-component",
      Origin: base,
      ...(options.cookie ? { cookie: options.cookie } : {}),
      ...options.headers,
    },
    body: options.body ?? JSON.stringify(args),
  });
  const text = await response.text();
  return { status: response.status, text, result: actionResult(text), cookies: cookiePairs(response) };
}

/** The `{ok, …}` row of a React Server Components answer (lines of `<id>:<json>`). */
function actionResult(text: string): ActionAnswer["result"] {
  for (const line of text.split("\n")) {
    const json = line.slice(line.indexOf(":") + 1);
    try {
      const value = JSON.parse(json) as unknown;
      if (value && typeof value === "object" && "ok" in value) return value as ActionAnswer["result"];
    } catch {
      // not a JSON row
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------
// State

/**
 * A digest of every table a refused call must leave alone. agent_tokens.last_used_at is
 * left out: authenticating a valid token records when it was last used, even when its
 * role is then refused (bookkeeping, not state a caller can steer).
 */
export async function stateDigest(f: HttpFixture): Promise<Record<string, string>> {
  const [row] = await f.database.client<Record<string, string>[]>`
    SELECT
      (SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY id), '')) FROM tasks t) AS tasks,
      (SELECT md5(coalesce(string_agg(e::text, '|' ORDER BY id), '')) FROM task_events e) AS task_events,
      (SELECT md5(coalesce(string_agg(q::text, '|' ORDER BY name), '')) FROM queues q) AS queues,
      (SELECT md5(coalesce(string_agg(a::text, '|' ORDER BY id), '')) FROM actors a) AS actors,
      (SELECT md5(coalesce(string_agg(u::text, '|' ORDER BY actor_id), '')) FROM users u) AS users,
      (SELECT md5(coalesce(string_agg(concat_ws(',', id, name, role, token_hash, revoked_at), '|' ORDER BY id), ''))
         FROM agent_tokens) AS agent_tokens,
      (SELECT md5(coalesce(string_agg(c::text, '|' ORDER BY id), '')) FROM claim_tokens c) AS claim_tokens,
      (SELECT count(*)::text FROM task_events) AS event_count`;
  return row!;
}
