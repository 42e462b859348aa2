import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { createUser } from "@/lib/auth/users";
import { seedHistory } from "@/lib/demo-history";
import { createTask, perform, setQueueSettings, type ActorRef } from "@/lib/tasks";

export interface DemoLogin {
  email: string;
  password: string;
  role: "staff" | "supervisor";
}

const PEOPLE = [
  { email: "amal@example.com", name: "Amal", role: "staff" },
  { email: "bilal@example.com", name: "Bilal", role: "staff" },
  { email: "sara@example.com", name: "Sara", role: "supervisor" },
] as const;

const TASKS = [
  { title: "Review inspection 7", priority: 5, queue: "inspections", description: "Check the photos against the checklist." },
  { title: "Email the landlord about unit 4B", priority: 3, queue: "default", description: "An external side effect: record it before sending." },
  { title: "Reconcile October invoices", priority: 1, queue: "default" },
  { title: "Translate the safety notice", priority: 0, queue: "default" },
  { title: "Call back the caretaker", priority: 2, queue: "inspections" },
];

/**
 * On an empty database only: three people (two staff, one supervisor) with fresh random
 * passwords, a handful of tasks and three hours of history in an "imports" queue, so a
 * newcomer can try the board, the inbox and the insights at once. Returns the
 * logins, or null when the database already has people.
 */
export async function seedDemo(db: Db): Promise<DemoLogin[] | null> {
  const [{ count } = { count: 0 }] = await db.execute<{ count: number }>(sql`SELECT count(*)::int AS count FROM users`);
  if (Number(count) > 0) return null;
  const logins: DemoLogin[] = [];
  const actors: Record<string, ActorRef> = {};
  for (const person of PEOPLE) {
    const password = randomBytes(9).toString("base64url");
    const account = await createUser(db, { ...person, password });
    logins.push({ email: person.email, password, role: person.role });
    actors[person.name] = account.actor;
  }
  // Three hours of an imports queue whose 30 s lease is too short: something for /insights.
  await seedHistory(db, { amal: actors.Amal!, sara: actors.Sara! }, "imports", "import-bot");
  const sara = { db, actor: actors.Sara! };
  // A failed attempt waits 30 s, then 60 s, … before it is claimable again (the retry backoff).
  for (const queue of ["default", "inspections"]) await perform(setQueueSettings, { queue, retryDelaySeconds: 30 }, sara);
  const ids: Record<string, string> = {};
  for (const task of TASKS) {
    const created = await perform(createTask, task, sara);
    if (created.ok) ids[task.title] = created.value.id;
  }
  // The work graph: a task that waits for another, and one scheduled for later.
  await perform(createTask, {
    title: "Post the translated notice in the lobby", queue: "default", dependsOn: [ids["Translate the safety notice"]!],
  }, sara);
  await perform(createTask, {
    title: "Re-inspect unit 4B", queue: "inspections", notBefore: new Date(Date.now() + 2 * 3600_000).toISOString(),
  }, sara);
  return logins;
}
