import { TOO_MANY_ATTEMPTS } from "./login-throttle";

// A sign-in refused as too many attempts — the backoff's wait (sign-in-backoff.ts), or the
// password checks' slots all taken (passwords.ts: shed before any hashing) — is next-auth's
// error `TooManyAttempts`, which its JSON answer (what the login form's signIn() reads) sends
// as 401 like a wrong password. This makes that answer HTTP 429, the body unchanged, so a
// flood's client and any proxy in front see the refusal for what it is; the form reads the
// error from the body as before. A redirect (a form posted without JavaScript) is left as it is.

/** The answer, as 429 when it is a JSON refusal of too many attempts. */
export async function tooManyAs429(response: Response): Promise<Response> {
  if (!(response.headers.get("content-type") ?? "").includes("application/json")) return response;
  const body = (await response.clone().json().catch(() => null)) as { url?: unknown } | null;
  if (typeof body?.url !== "string") return response;
  let error: string | null = null;
  try {
    error = new URL(body.url, "http://local").searchParams.get("error");
  } catch {
    return response;
  }
  if (error !== TOO_MANY_ATTEMPTS) return response;
  return new Response(response.body, { status: 429, headers: new Headers(response.headers) });
}
