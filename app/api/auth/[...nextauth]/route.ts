import NextAuth from "next-auth";
import type { NextRequest } from "next/server";
import { authOptionsFor } from "@/lib/auth/cookies";
import { tooManyAs429 } from "@/lib/auth/sign-in-shed";

// Per request: the cookies are Secure when the request came over TLS (lib/auth/cookies.ts); a
// sign-in refused as too many attempts answers 429 (lib/auth/sign-in-shed.ts).
const handler = async (request: NextRequest, context: { params: Promise<{ nextauth: string[] }> }) =>
  tooManyAs429(await NextAuth(request, context, authOptionsFor(request.headers)));

export { handler as GET, handler as POST };
