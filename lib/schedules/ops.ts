import { and, asc, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Executor, Tx } from "@/db/client";
import { isUniqueViolation } from "@/db/errors";
import { queues, schedules, type ScheduleRow } from "@/db/schema";
import { didYouMean, nearestQueue, type Clock, defineOperation } from "@/lib/tasks";
import { SUPERVISORS, fail, ok, type ActorRef, type Result } from "@/lib/tasks/model";
import { recordAudit } from "@/lib/auth/audit";
import { nextOccurrence } from "./cron";
import { createScheduleInput, scheduleIdInput, updateScheduleInput } from "./schemas";

// Schedules made, changed and deleted by supervisors (API, /schedules, CLI): engine operations.
// The ticks that act on them are lib/schedules/tick.ts.

export interface ScheduledTask { title: string; description?: string; priority?: number; payload?: Record<string, unknown> }

/** A schedule as the API answers it. */
export interface Schedule {
  id: string;
  name: string;
  cron: string;
  timezone: string;
  queue: string;
  task: ScheduledTask;
  overlap: "skip" | "allow";
  missed: "skip" | "once";
  paused: boolean;
  nextAt: Date | null;
  lastAt: Date | null;
  lastResult: { kind: "created" | "backfilled" | "skipped" | "failed"; taskId?: string; reason?: string } | null;
  createdAt: Date;
  /** Paused because the authority it acts with ended (lib/auth/authority.ts) until a supervisor adopts it; null while it holds. */
  authorityEndedAt: Date | null;
  authorityEndedReason: string | null;
}

export const toSchedule = (row: ScheduleRow): Schedule => ({
  id: row.id, name: row.name, cron: row.cron, timezone: row.timezone, queue: row.queue,
  task: row.task as ScheduledTask, overlap: row.overlap as Schedule["overlap"], missed: row.missed as Schedule["missed"],
  paused: row.paused, nextAt: row.paused || row.authorityEndedAt ? null : row.nextAt, lastAt: row.lastAt,
  lastResult: (row.lastResult as Schedule["lastResult"]) ?? null, createdAt: row.createdAt,
  authorityEndedAt: row.authorityEndedAt, authorityEndedReason: row.authorityEndedReason,
});

const subject = (row: Pick<ScheduleRow, "id" | "name">) => ({ kind: "schedule" as const, id: row.id, name: row.name });

/** The clock's now as a Date (the database's, or a test's). */
export async function clockNow(tx: Executor, clock: Clock): Promise<Date> {
  const [row] = await tx.execute<{ now: string | Date }>(sql`SELECT ${clock.now()} AS now`);
  return new Date(row!.now);
}

async function queueRefusal(tx: Tx, name: string): Promise<string | null> {
  const [queue] = await tx.select({ archivedAt: queues.archivedAt }).from(queues).where(eq(queues.name, name));
  if (!queue) return `no queue is named ${name}${didYouMean(await nearestQueue(tx, name))}`;
  return queue.archivedAt ? `queue ${name} is archived` : null;
}

const nameTaken = (name: string) => fail({ code: "invalid_request", message: `name: a schedule is already named ${name}`, field: "name" });

export const createSchedule = defineOperation({
  name: "createSchedule",
  who: SUPERVISORS,
  input: createScheduleInput,
  async run(tx, input, { actor, clock }): Promise<Result<Schedule>> {
    const refused = await queueRefusal(tx, input.queue);
    if (refused) return fail({ code: "invalid_request", message: `queue: ${refused}`, field: "queue" });
    const timezone = input.timezone ?? "UTC";
    const now = await clockNow(tx, clock);
    try {
      const [row] = await tx.transaction(async (inner) => inner.insert(schedules).values({
        name: input.name, cron: input.cron.trim(), timezone, queue: input.queue, task: input.task,
        overlap: input.overlap ?? "skip", missed: input.missed ?? "skip",
        nextAt: nextOccurrence(input.cron, timezone, now), createdBy: actor.id, createdAt: now, updatedAt: now,
      }).returning());
      await recordAudit(tx, actor, { action: "schedule_created", subject: subject(row!), detail: { cron: row!.cron, timezone, queue: row!.queue } });
      return ok(toSchedule(row!));
    } catch (error) {
      if (isUniqueViolation(error)) return nameTaken(input.name);
      throw error;
    }
  },
});

export const updateSchedule = defineOperation({
  name: "updateSchedule",
  who: SUPERVISORS,
  input: updateScheduleInput,
  async run(tx, { id, ...changes }, { actor, clock }): Promise<Result<Schedule>> {
    const [row] = await tx.select().from(schedules).where(and(eq(schedules.id, id), isNull(schedules.deletedAt))).for("update");
    if (!row) return fail({ code: "not_found", message: `No schedule ${id}` });
    if (Object.keys(changes).length === 0) return fail({ code: "invalid_request", message: "Name at least one field to change" });
    const now = await clockNow(tx, clock);
    const cron = changes.cron?.trim() ?? row.cron;
    const timezone = changes.timezone ?? row.timezone;
    const paused = changes.paused ?? row.paused;
    // A new cron or zone, or a resume, counts from now: a pause skips what passed meanwhile.
    const recount = changes.cron !== undefined || changes.timezone !== undefined || (row.paused && !paused);
    try {
      const [updated] = await tx.transaction(async (inner) => inner.update(schedules).set({
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(changes.task !== undefined ? { task: changes.task } : {}),
        ...(changes.overlap !== undefined ? { overlap: changes.overlap } : {}),
        ...(changes.missed !== undefined ? { missed: changes.missed } : {}),
        cron, timezone, paused,
        ...(recount ? { nextAt: nextOccurrence(cron, timezone, now) } : {}),
        updatedAt: now,
      }).where(eq(schedules.id, id)).returning());
      await auditChange(tx, actor, row, changes);
      return ok(toSchedule(updated!));
    } catch (error) {
      if (isUniqueViolation(error) && changes.name) return nameTaken(changes.name);
      throw error;
    }
  },
});

export const deleteSchedule = defineOperation({
  name: "deleteSchedule",
  who: SUPERVISORS,
  input: scheduleIdInput,
  async run(tx, { id }, { actor, clock }) {
    const [row] = await tx.update(schedules).set({ deletedAt: clock.now(), nextAt: null })
      .where(and(eq(schedules.id, id), isNull(schedules.deletedAt))).returning({ id: schedules.id, name: schedules.name });
    if (!row) return fail({ code: "not_found", message: `No schedule ${id}` });
    await recordAudit(tx, actor, { action: "schedule_deleted", subject: subject(row) });
    return ok({ deleted: id });
  },
});

/**
 * Adopts a schedule: it acts with the adopter's authority from now on, and one paused because
 * its maker's authority ended ticks again, counting from now (what passed meanwhile is skipped).
 */
export const adoptSchedule = defineOperation({
  name: "adoptSchedule",
  who: SUPERVISORS,
  input: scheduleIdInput,
  async run(tx, { id }, { actor, clock }): Promise<Result<Schedule>> {
    const [row] = await tx.select().from(schedules).where(and(eq(schedules.id, id), isNull(schedules.deletedAt))).for("update");
    if (!row) return fail({ code: "not_found", message: `No schedule ${id}` });
    const now = await clockNow(tx, clock);
    const [updated] = await tx.update(schedules).set({
      adoptedBy: actor.id, adoptedAt: now, authorityEndedAt: null, authorityEndedReason: null, updatedAt: now,
      ...(row.authorityEndedAt ? { nextAt: nextOccurrence(row.cron, row.timezone, now) } : {}),
    }).where(eq(schedules.id, id)).returning();
    await recordAudit(tx, actor, { action: "schedule_adopted", subject: subject(row), detail: { ended: row.authorityEndedReason } });
    return ok(toSchedule(updated!));
  },
});

/** One audit row for a change that changed something: a pause, a resume, or the fields changed. */
async function auditChange(tx: Tx, actor: ActorRef, row: ScheduleRow, changes: Omit<z.infer<typeof updateScheduleInput>, "id">): Promise<void> {
  const { paused, ...rest } = changes;
  const current = row as unknown as Record<string, unknown>;
  const fields = Object.entries(rest).filter(([key, value]) => value !== undefined && JSON.stringify(value) !== JSON.stringify(current[key])).map(([key]) => key);
  if (fields.length > 0) await recordAudit(tx, actor, { action: "schedule_changed", subject: subject(row), detail: { fields } });
  if (paused !== undefined && paused !== row.paused) await recordAudit(tx, actor, { action: paused ? "schedule_paused" : "schedule_resumed", subject: subject(row) });
}

/** The live schedules, by name. */
export async function listSchedules(db: Executor): Promise<Schedule[]> {
  const rows = await db.select().from(schedules).where(isNull(schedules.deletedAt)).orderBy(asc(schedules.name));
  return rows.map(toSchedule);
}

/** The schedules paused because the authority they acted with ended: the inbox says so until someone adopts them. */
export async function listPausedSchedules(db: Executor): Promise<Schedule[]> {
  const rows = await db.select().from(schedules).where(and(isNull(schedules.deletedAt), isNotNull(schedules.authorityEndedAt))).orderBy(asc(schedules.name));
  return rows.map(toSchedule);
}

export type CreateScheduleInput = z.input<typeof createScheduleInput>;
