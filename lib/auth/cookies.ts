import "server-only";
import type { CookiesOptions, NextAuthOptions } from "next-auth";
import { overTls } from "@/lib/http/transport";
import { authOptions } from "./options";

// next-auth v4 marks its cookies Secure only when NEXTAUTH_URL starts with https:// (its
// useSecureCookies default), and then also renames them (__Secure-, __Host-). Behind a TLS
// proxy with an http (or derived) NEXTAUTH_URL, the session cookie went out without Secure,
// and a browser would send it over plain HTTP too. So per request: over TLS as a trusted
// proxy says (lib/http/transport.ts), the same cookies with Secure set. Their names stay as
// they are, so getServerSession — which looks them up by name — finds them either way.

const NAMES = {
  sessionToken: "next-auth.session-token",
  callbackUrl: "next-auth.callback-url",
  csrfToken: "next-auth.csrf-token",
  pkceCodeVerifier: "next-auth.pkce.code_verifier",
  state: "next-auth.state",
  nonce: "next-auth.nonce",
} as const;

/** next-auth's default cookies (core/lib/cookie.ts) under their plain names, Secure or not. */
function cookiesFor(secure: boolean): CookiesOptions {
  const entries = Object.entries(NAMES).map(([key, name]) => {
    const short = key === "pkceCodeVerifier" || key === "state" ? { maxAge: 60 * 15 } : {};
    return [key, { name, options: { httpOnly: true, sameSite: "lax", path: "/", secure, ...short } }];
  });
  return Object.fromEntries(entries) as CookiesOptions;
}

/** The options for one request to /api/auth/*: next-auth's own when NEXTAUTH_URL is https. */
export function authOptionsFor(headers: Headers): NextAuthOptions {
  if (process.env.NEXTAUTH_URL?.startsWith("https://")) return authOptions;
  return { ...authOptions, cookies: cookiesFor(overTls(headers)) };
}
