import type { Metadata, Viewport } from "next";
import { Header } from "@/components/layout/header";
import { currentUser } from "@/lib/auth/session";
import { databaseNow, streamPosition, viewerOf } from "./_lib/session";
import { Providers } from "./providers";
import "./globals.css";

export const metadata: Metadata = {
  title: "Claimboard",
  description: "A shared task board that people and agents claim work from safely",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

/**
 * Signed in: the header and the tab's event stream. Signed out: the page alone (the
 * sign-in page, or any page on its way to redirecting there — each page checks itself).
 */
export default async function RootLayout({ children }: Readonly<{ children: React.ReactNode }>) {
  const user = await currentUser();
  const viewer = user ? viewerOf(user) : null;
  const after = user ? await streamPosition() : null;
  const renderedAt = user ? await databaseNow() : 0;
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">
        <a
          href="#content"
          className="sr-only z-50 rounded-md bg-white px-3 py-2 text-sm font-medium text-blue-800 shadow focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:outline-2 focus:outline-blue-700"
        >
          Skip to content
        </a>
        <Providers viewer={viewer} after={after} renderedAt={renderedAt}>
          {viewer ? <Header viewer={viewer} /> : null}
          {/* The skip link's target: focusable so the next Tab continues from the page itself. */}
          <div id="content" tabIndex={-1}>
            {children}
          </div>
        </Providers>
      </body>
    </html>
  );
}
