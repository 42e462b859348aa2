import "server-only";
import { redirect } from "next/navigation";
import { sql } from "drizzle-orm";
import { cache } from "react";
import { getDatabase } from "@/db";
import { currentUser, hasRole } from "@/lib/auth/session";
import type { UserAccount } from "@/lib/auth/users";
import { formatCursor } from "@/lib/realtime/cursor";
import { currentPosition } from "@/lib/realtime/feed";
import type { Viewer } from "@/components/task/wire";

/**
 * The signed-in person, or a redirect to /login (coming back to `from` afterwards). Every
 * page calls this itself: a layout is not re-run on client navigation, and a proxy alone
 * is not a guard.
 */
export async function requireUser(from: string): Promise<UserAccount> {
  const user = await currentUser();
  if (!user) redirect(`/login?next=${encodeURIComponent(from)}`);
  return user;
}

/**
 * The supervisors' pages, in the words the board uses to say why a staff member was sent
 * back from one: a page not named here cannot call requireSupervisor (it would send staff
 * back with no word of why).
 */
export const SUPERVISOR_PAGES = {
  inbox: "the escalation inbox",
  queues: "the queue settings",
  insights: "Insights",
  agents: "agent tokens",
  people: "people management",
  webhooks: "webhooks",
  schedules: "schedules",
} as const;

/**
 * A supervisor, or a redirect: to /login when nobody is signed in, back to the board
 * (`?denied=<page>`) for staff. The page's actions each re-check the role themselves.
 */
export async function requireSupervisor(from: string, page: keyof typeof SUPERVISOR_PAGES): Promise<UserAccount> {
  const user = await requireUser(from);
  if (!hasRole(user, "supervisor")) redirect(`/?denied=${page}`);
  return user;
}

export function viewerOf(user: UserAccount): Viewer {
  return { actorId: user.actor.id, name: user.actor.name, role: user.role };
}

/**
 * The event stream's position, taken once per request and BEFORE the page reads its
 * data: the browser's EventSource resumes from here, so a change that commits between
 * the render and the connection still reaches the page.
 */
export const streamPosition = cache(async (): Promise<string> => formatCursor(await currentPosition(getDatabase().db)));

/** The database's clock (the only clock) at render, in ms: seeds the browser's estimate of it. */
export const databaseNow = cache(async (): Promise<number> => {
  const [row] = await getDatabase().db.execute<{ now: string }>(sql`SELECT (extract(epoch FROM now()) * 1000)::bigint::text AS now`);
  return Number(row?.now ?? Date.now());
});
