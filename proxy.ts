import { NextResponse, type NextRequest } from "next/server";

// A path with broken percent-encoding would otherwise fail inside Next.js, before any
// route handler, as a plain-text 500. Answer it in API.md's error shape instead.
export function proxy(request: NextRequest) {
  try {
    decodeURIComponent(request.nextUrl.pathname);
  } catch {
    return NextResponse.json(
      { error: { code: "invalid_request", message: "The request path is not valid percent-encoded UTF-8" } },
      { status: 400 },
    );
  }
  return NextResponse.next();
}

export const config = { matcher: "/api/v1/:path*" };
