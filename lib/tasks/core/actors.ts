import { eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { actors, type ActorKind } from "@/db/schema";
import { SYSTEM_ACTOR_ID } from "./events";
import type { ActorRef } from "./types";

export const SYSTEM_ACTOR: ActorRef = { id: SYSTEM_ACTOR_ID, name: "system", kind: "system" };

export async function createActor(db: Executor, kind: Exclude<ActorKind, "system">, name: string): Promise<ActorRef> {
  const [actor] = await db.insert(actors).values({ kind, name }).returning();
  return { id: actor!.id, name: actor!.name, kind: actor!.kind };
}

export async function findActor(db: Executor, id: string): Promise<ActorRef | null> {
  const [actor] = await db.select().from(actors).where(eq(actors.id, id));
  return actor ? { id: actor.id, name: actor.name, kind: actor.kind } : null;
}
