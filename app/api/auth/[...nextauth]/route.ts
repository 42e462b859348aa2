import NextAuth from "next-auth";
import type { NextRequest } from "next/server";
import { authOptionsFor } from "@/lib/auth/cookies";

// Per request: the cookies are Secure when the request came over TLS (lib/auth/cookies.ts).
const handler = (request: NextRequest, context: { params: Promise<{ nextauth: string[] }> }) =>
  NextAuth(request, context, authOptionsFor(request.headers));

export { handler as GET, handler as POST };
