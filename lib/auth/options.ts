import "server-only";
import { eq, sql } from "drizzle-orm";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import type { Provider } from "next-auth/providers/index";
import { getDatabase } from "@/db";
import { users } from "@/db/schema";
import { cookies } from "next/headers";
import { overTls } from "@/lib/http/transport";
import { DEVICE_COOKIE, DEVICE_COOKIE_MAX_AGE, deviceFromCookieHeader } from "./device-cookie";
import { loginAddress } from "./login-throttle";
import { signInWithPassword } from "./password-sign-in";
import { redeemPasswordReset } from "./password-reset";

/** The login form's sentences for a reset link that did not work (components/auth/login-form.tsx). */
const RESET_INVALID = "ResetInvalid";
const RESET_PASSWORD_SHORT = "ResetPassword";

/** Sets the trusted-device cookie on the sign-in's answer (lib/auth/device-cookie.ts). */
async function rememberDevice(value: string, headers: Record<string, unknown> | undefined) {
  const proto = headers?.["x-forwarded-proto"];
  const secure = overTls(new Headers(typeof proto === "string" ? { "x-forwarded-proto": proto } : {}));
  try {
    (await cookies()).set(DEVICE_COOKIE, value, { httpOnly: true, sameSite: "lax", path: "/api/auth", maxAge: DEVICE_COOKIE_MAX_AGE, secure });
  } catch {
    // Outside a request (tests calling authorize directly): there is no answer to set it on.
  }
}

/** The login page's sentence for a single sign-on whose email the provider has not verified. */
const EMAIL_UNVERIFIED = "EmailUnverified";

/** OIDC's email_verified claim; some providers send it as the string "true". */
function emailVerified(profile: unknown): boolean {
  const claim = (profile as { email_verified?: unknown } | undefined)?.email_verified;
  return claim === true || claim === "true";
}

/** An OIDC provider for teams with single sign-on, when OIDC_ISSUER and its client are set. */
function oidcProvider(): Provider[] {
  const { OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET } = process.env;
  if (!OIDC_ISSUER || !OIDC_CLIENT_ID || !OIDC_CLIENT_SECRET) return [];
  return [
    {
      id: "oidc",
      name: process.env.OIDC_NAME ?? "Single sign-on",
      type: "oauth",
      wellKnown: `${OIDC_ISSUER.replace(/\/$/, "")}/.well-known/openid-configuration`,
      clientId: OIDC_CLIENT_ID,
      clientSecret: OIDC_CLIENT_SECRET,
      authorization: { params: { scope: "openid email profile" } },
      idToken: true,
      checks: ["pkce", "state"],
      profile: (profile: { sub: string; email?: string; name?: string }) => ({ id: profile.sub, email: profile.email, name: profile.name }),
    },
  ];
}

/**
 * JWT sessions carrying the user's actor id and session generation only. The role is NOT
 * trusted from the token: a session outlives a role change, so every guard re-reads role,
 * disabled and generation from the database (lib/auth/session.ts).
 */
export const authOptions: NextAuthOptions = {
  session: { strategy: "jwt", maxAge: 12 * 60 * 60 },
  // Sign-in errors (a refused single sign-on) land on the login page, which says them in words.
  pages: { signIn: "/login", error: "/login" },
  providers: [
    CredentialsProvider({
      name: "Email and password",
      credentials: {
        email: { label: "Email", type: "email" },
        password: { label: "Password", type: "password" },
        // A supervisor's one-time reset link (lib/auth/password-reset.ts): sets the password and signs in.
        resetToken: { label: "Reset link", type: "text" },
      },
      authorize: async (credentials, request) => {
        if (credentials?.resetToken && credentials.password) {
          const reset = await redeemPasswordReset(getDatabase().db, credentials.resetToken, credentials.password);
          if (!reset.ok) throw new Error(reset.error.field === "password" ? RESET_PASSWORD_SHORT : RESET_INVALID);
          return { id: reset.value.actorId, email: reset.value.email };
        }
        if (!credentials?.email || !credentials.password) return null;
        const headers = request?.headers as Record<string, unknown> | undefined;
        const signedIn = await signInWithPassword(
          getDatabase().db,
          credentials.email,
          credentials.password,
          loginAddress(headers),
          deviceFromCookieHeader(headers?.cookie),
        );
        if (!signedIn) return null;
        if (signedIn.device) await rememberDevice(signedIn.device, headers);
        return { id: signedIn.id, email: signedIn.email };
      },
    }),
    ...oidcProvider(),
  ],
  callbacks: {
    // Single sign-on admits only people who already have an account (made with the CLI),
    // matched by an email the provider verified: anyone may type any address into an IdP
    // account, and an unverified one would sign them in as whoever holds it here.
    async signIn({ user, account, profile }) {
      if (account?.provider !== "oidc") return true;
      if (!user.email) return false;
      if (!emailVerified(profile)) return `/login?error=${EMAIL_UNVERIFIED}`;
      const { db } = getDatabase();
      const [known] = await db.select().from(users).where(eq(sql`lower(${users.email})`, user.email.toLowerCase()));
      if (!known || known.disabled) return false;
      user.id = known.actorId;
      return true;
    },
    // A session is issued in the person's current generation (lib/auth/session.ts checks it on
    // use): one read at sign-in, whichever way they signed in.
    async jwt({ token, user }) {
      if (user) {
        token.actorId = user.id;
        const [row] = await getDatabase().db.select({ generation: users.sessionGeneration }).from(users).where(eq(users.actorId, user.id));
        token.sessionGeneration = row?.generation ?? 0;
      }
      return token;
    },
    async session({ session, token }) {
      return { ...session, actorId: token.actorId as string | undefined, sessionGeneration: token.sessionGeneration as number | undefined };
    },
  },
};
