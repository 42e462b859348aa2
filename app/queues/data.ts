import "server-only";
import { asc, eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { actors, queues } from "@/db/schema";

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
  retryDelaySeconds: number;
  paused: boolean;
  pausedAt: Date | null;
  pausedBy: string | null;
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
      retryDelaySeconds: queues.retryDelaySeconds,
      paused: queues.paused,
      pausedAt: queues.pausedAt,
      pausedBy: actors.name,
    })
    .from(queues)
    .leftJoin(actors, eq(actors.id, queues.pausedBy))
    .orderBy(asc(queues.name));
}
