// The database's tables, enums and inferred types, in files by what they hold. drizzle-kit
// reads this folder (drizzle.config.ts); the app imports "@/db/schema".
export * from "./enums";
export * from "./tasks";
export * from "./events";
export * from "./people";
export * from "./insights";
export * from "./audit";
export * from "./webhooks";
export * from "./schedules";
export * from "./oauth";
export * from "./password-resets";
export * from "./secrets";
export * from "./effects";
export * from "./checkpoints";
export * from "./questions";
export * from "./claim-tokens";
export * from "./claim-waits";

import type { actors, tasks, queues } from "./tasks";
import type { taskEvents } from "./events";
import type { users, agentTokens } from "./people";
import type { actorKind, claimants, eventType, taskStatus, tokenRole, userRole } from "./enums";

export type Actor = typeof actors.$inferSelect;
export type User = typeof users.$inferSelect;
export type AgentToken = typeof agentTokens.$inferSelect;
export type UserRole = (typeof userRole.enumValues)[number];
export type TokenRole = (typeof tokenRole.enumValues)[number];
export type Queue = typeof queues.$inferSelect;
export type TaskRow = typeof tasks.$inferSelect;
export type TaskEventRow = typeof taskEvents.$inferSelect;
export type TaskStatus = (typeof taskStatus.enumValues)[number];
export type EventType = (typeof eventType.enumValues)[number];
export type ActorKind = (typeof actorKind.enumValues)[number];
export type Claimants = (typeof claimants.enumValues)[number];
