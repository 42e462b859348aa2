import { randomBytes } from "node:crypto";
import type { Db } from "@/db/client";
import { schedules, webhooks } from "@/db/schema";
import { SYSTEM_ACTOR_ID } from "@/lib/tasks/core/events";

// Rows the matrices' scenes act on for the v1.2 supervisor surfaces (webhooks, schedules),
// written straight to the database as a fixture: the cell under test is the call, not these.

export async function aWebhook(db: Db, queue: string): Promise<string> {
  const [row] = await db.insert(webhooks).values({
    url: `https://198.51.100.7/${queue}`, events: ["breaker_tripped"], queues: [queue], secretSealed: "matrix", createdBy: SYSTEM_ACTOR_ID,
  }).returning({ id: webhooks.id });
  return row!.id;
}

export async function aSchedule(db: Db, queue: string): Promise<string> {
  const [row] = await db.insert(schedules).values({
    name: `matrix ${queue} ${randomBytes(3).toString("hex")}`, cron: "0 9 * * 1", queue, task: { title: "matrix" },
    nextAt: new Date(Date.now() + 86_400_000), createdBy: SYSTEM_ACTOR_ID,
  }).returning({ id: schedules.id });
  return row!.id;
}
