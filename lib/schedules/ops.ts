import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Executor, Tx } from "@/db/client";
import { isUniqueViolation } from "@/db/errors";
import { queues, schedules, type ScheduleRow } from "@/db/schema";
import { didYouMean, nearestQueue } from "@/lib/tasks/queues/queues";
import type { Clock } from "@/lib/tasks/core/clock";
import { defineOperation } from "@/lib/tasks/core/engine";
import { SUPERVISORS } from "@/lib/tasks/core/standing";
import { fail, ok, type Result } from "@/lib/tasks/core/types";
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
}

export const toSchedule = (row: ScheduleRow): Schedule => ({
  id: row.id, name: row.name, cron: row.cron, timezone: row.timezone, queue: row.queue,
  task: row.task as ScheduledTask, overlap: row.overlap as Schedule["overlap"], missed: row.missed as Schedule["missed"],
  paused: row.paused, nextAt: row.paused ? null : row.nextAt, lastAt: row.lastAt,
  lastResult: (row.lastResult as Schedule["lastResult"]) ?? null, createdAt: row.createdAt,
});

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
  async run(tx, { id, ...changes }, { clock }): Promise<Result<Schedule>> {
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
  async run(tx, { id }, { clock }) {
    const [row] = await tx.update(schedules).set({ deletedAt: clock.now(), nextAt: null })
      .where(and(eq(schedules.id, id), isNull(schedules.deletedAt))).returning({ id: schedules.id });
    return row ? ok({ deleted: id }) : fail({ code: "not_found", message: `No schedule ${id}` });
  },
});

/** The live schedules, by name. */
export async function listSchedules(db: Executor): Promise<Schedule[]> {
  const rows = await db.select().from(schedules).where(isNull(schedules.deletedAt)).orderBy(asc(schedules.name));
  return rows.map(toSchedule);
}

export type CreateScheduleInput = z.input<typeof createScheduleInput>;
