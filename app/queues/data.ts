import "server-only";
import { asc } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { queues } from "@/db/schema";

export interface QueueSettingsRow {
  name: string;
  leaseSeconds: number;
  maxFailures: number;
  expiryThreshold: number;
  expiryWindowSeconds: number;
  breakerTrippedAt: Date | null;
  breakerReason: string | null;
  claimants: "anyone" | "people" | "agents";
  maxAttemptSeconds: number | null;
}

/** Every queue's settings and breaker state, alphabetically. */
export async function listQueueSettings(db: Executor): Promise<QueueSettingsRow[]> {
  return db
    .select({
      name: queues.name,
      leaseSeconds: queues.leaseSeconds,
      maxFailures: queues.maxFailures,
      expiryThreshold: queues.expiryThreshold,
      expiryWindowSeconds: queues.expiryWindowSeconds,
      breakerTrippedAt: queues.breakerTrippedAt,
      breakerReason: queues.breakerReason,
      claimants: queues.claimants,
      maxAttemptSeconds: queues.maxAttemptSeconds,
    })
    .from(queues)
    .orderBy(asc(queues.name));
}
