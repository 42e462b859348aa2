import "server-only";
import { cookies, headers } from "next/headers";
import { decode, encode } from "next-auth/jwt";
import { overTls } from "@/lib/http/transport";
import { authOptions } from "./options";

// A password change ends every session of the person (lib/auth/users.ts endSessions), but the
// one that changed it should go on: the person typed their current password in it. Its JWT is
// re-issued in the new generation, under the name and with the options next-auth set it with
// (lib/auth/cookies.ts: plain names, Secure over TLS; __Secure- names when NEXTAUTH_URL is https).

const NAMES = ["next-auth.session-token", "__Secure-next-auth.session-token"];

/** Carries the calling request's session into `generation`; nothing when it has none. */
export async function keepThisSession(generation: number): Promise<void> {
  const secret = process.env.NEXTAUTH_SECRET;
  if (!secret) return;
  const jar = await cookies();
  const maxAge = authOptions.session?.maxAge ?? 12 * 60 * 60;
  const tls = overTls(await headers());
  for (const name of NAMES) {
    const value = jar.get(name)?.value;
    if (!value) continue;
    const token = await decode({ token: value, secret }).catch(() => null);
    if (!token) continue;
    const fresh = await encode({ token: { ...token, sessionGeneration: generation }, secret, maxAge });
    jar.set(name, fresh, { httpOnly: true, sameSite: "lax", path: "/", maxAge, secure: name.startsWith("__Secure-") || tls });
  }
}
