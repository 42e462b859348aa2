import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { createUser } from "@/lib/auth/users";
import { seedHistory } from "@/lib/demo-history";
import { createQueue, createTask, perform, setQueueSettings, type ActorRef } from "@/lib/tasks";

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
  { title: "Phone the tenant in 2C about the boiler", priority: 2, queue: "errands", description: "People only: a call an agent cannot make." },
  { title: "Fetch the meter readings from the portal", priority: 1, queue: "crawl", description: "Agents only: a scripted export." },
];

/**
 * The demo's queues besides default, made on purpose as a supervisor would: a people queue
 * and an agents queue (who may claim), the agents' with an attempt ceiling. A failed attempt
 * waits 30 s, then 60 s, … before it is claimable again (the retry backoff).
 */
const QUEUES = [
  { name: "inspections", description: "Site inspections and their follow-ups", retryDelaySeconds: 30 },
  { name: "errands", description: "Calls and visits only a person can make", claimants: "people" as const },
  { name: "crawl", description: "Scripted exports from the portals", claimants: "agents" as const, maxAttemptSeconds: 900 },
];

/**
 * On an empty database only: three people (two staff, one supervisor) with fresh random
 * passwords, a handful of tasks (one in a people-only queue, one in an agents-only queue)
 * and three hours of history in an "imports" queue, so a
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
  await perform(setQueueSettings, { queue: "default", retryDelaySeconds: 30 }, sara);
  for (const queue of QUEUES) await perform(createQueue, queue, sara);
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
