import "server-only";
import { existsSync } from "node:fs";
import path from "node:path";
import { inArray } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { users } from "@/db/schema";

/** The demo's people (lib/demo.ts), as the login page names them. */
export const DEMO_PEOPLE = [
  { email: "amal@example.com", role: "staff" },
  { email: "bilal@example.com", role: "staff" },
  { email: "sara@example.com", role: "supervisor" },
] as const;

/**
 * Where `npm start` keeps its embedded database and the demo logins (db/project-database.ts).
 * Data read at run time, not code: without the ignore comment Turbopack's build traced the
 * whole project for this one path and printed a warning a newcomer's first `npm start` read
 * as their mistake.
 */
export const dataDir = () => path.resolve(/*turbopackIgnore: true*/ process.env.CLAIMBOARD_DATA_DIR ?? ".data");

/**
 * Whether the sign-in page may hint at the demo accounts: only when an embedded first start
 * made them — its logins file is on this server's disk (scripts/serve.ts writes it, and only
 * for the embedded database, never for DATABASE_URL) — and the demo people are still in the
 * database, still enabled. The hint names the accounts and the file (not where it is); it
 * never shows a password (they are random, and the file is the server owner's, mode 600).
 */
export async function demoLoginsHint(db: Executor, dir = dataDir()): Promise<{ email: string; role: string }[] | null> {
  const file = path.join(dir, "demo-logins.txt");
  if (!existsSync(file)) return null;
  const rows = await db
    .select({ email: users.email, disabled: users.disabled })
    .from(users)
    .where(inArray(users.email, DEMO_PEOPLE.map((p) => p.email)));
  const present = new Set(rows.filter((r) => !r.disabled).map((r) => r.email));
  const people = DEMO_PEOPLE.filter((p) => present.has(p.email));
  return people.length > 0 ? people : null;
}

/**
 * The file, as the hint names it: its name only. The sign-in page is public, and a path on
 * the server tells a stranger its layout (and often a user name); whoever runs the server
 * knows its data folder (.data, or CLAIMBOARD_DATA_DIR).
 */
export function demoLoginsFile(dir = dataDir()): string {
  return path.basename(path.join(dir, "demo-logins.txt"));
}
