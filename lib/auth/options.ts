import "server-only";
import { eq, sql } from "drizzle-orm";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import type { Provider } from "next-auth/providers/index";
import { getDatabase } from "@/db";
import { users } from "@/db/schema";
import { UNKNOWN_ADDRESS } from "@/lib/http/client-address";
import { loginAddress, TOO_MANY_ATTEMPTS } from "./login-throttle";
import { isLocked, lockPolicies, recordFailure } from "./sign-in-lockout";
import { SIGN_IN_LIMITS, verifyPassword } from "./passwords";

// A hash of a password nobody has: unknown emails cost the same argon2 work as known ones.
const DUMMY_HASH = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$2xXTo52JUtMG5ep7MHdXT5kNaU1vJJXmq5FuF8MHrJU";

/**
 * One answer for every failure (unknown email, wrong password, disabled account): null,
 * which the form shows as "Wrong email or password." Throttled keys are refused before any
 * work, with the same refusal for known and unknown emails (lib/auth/sign-in-lockout.ts).
 */
async function signInWithPassword(email: string, password: string, address: string) {
  const account = email.trim().toLowerCase();
  if (account.length > SIGN_IN_LIMITS.email) return null; // no such account: nothing to count it against
  const policies = lockPolicies();
  const { db } = getDatabase();
  // Without a trusted proxy every caller is "direct": one shared address key would let anyone
  // lock everybody out, so only the per-account window applies then.
  const byAddress = address !== UNKNOWN_ADDRESS;
  const [accountLocked, addressLocked] = await Promise.all([
    isLocked(db, "account", account, policies.account),
    byAddress ? isLocked(db, "address", address, policies.address) : false,
  ]);
  if (accountLocked || addressLocked) throw new Error(TOO_MANY_ATTEMPTS);
  // Too long to be anyone's password: a failure like any other, without the hash.
  const tooLong = password.length > SIGN_IN_LIMITS.password;
  const [user] = tooLong ? [] : await db.select().from(users).where(eq(sql`lower(${users.email})`, account));
  const valid = !tooLong && (await verifyPassword(user?.passwordHash ?? DUMMY_HASH, password));
  if (!user || !valid || user.disabled) {
    await Promise.all([
      recordFailure(db, "account", account, policies.account),
      byAddress ? recordFailure(db, "address", address, policies.address) : null,
    ]);
    return null;
  }
  return { id: user.actorId, email: user.email };
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
 * JWT sessions carrying the user's actor id only. The role is NOT trusted from the
 * token: a session outlives a role change, so every guard re-reads role and disabled
 * from the database (lib/auth/session.ts).
 */
export const authOptions: NextAuthOptions = {
  session: { strategy: "jwt", maxAge: 12 * 60 * 60 },
  // Sign-in errors (a refused single sign-on) land on the login page, which says them in words.
  pages: { signIn: "/login", error: "/login" },
  providers: [
    CredentialsProvider({
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      authorize: async (credentials, request) =>
        credentials?.email && credentials.password
          ? signInWithPassword(credentials.email, credentials.password, loginAddress(request?.headers))
          : null,
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
    async jwt({ token, user }) {
      if (user) token.actorId = user.id;
      return token;
    },
    async session({ session, token }) {
      return { ...session, actorId: token.actorId as string | undefined };
    },
  },
};
