"use server";

import { z } from "zod";
import { guardedAction } from "@/lib/auth/action";
import { listPausedQueues, listQueueNames, listQueueRules, readLapsed, reviewsWaitingFor, reservationWaits, databaseClock } from "@/lib/tasks";
import { ok } from "@/lib/tasks/model";
import { notificationFacts } from "@/lib/notify/facts";

// Reads the board needs that the agent API does not offer, behind the same guard.
export const listQueuesAction = guardedAction("staff", z.strictObject({}), async (_input, { db }) => ok(await listQueueNames(db)));

/** Who may claim each queue and its last strike: the board hides what a person may not do, and says why. */
export const queueRulesAction = guardedAction("staff", z.strictObject({}), async (_input, { db }) => ok(await listQueueRules(db)));
export const pausedQueuesAction = guardedAction("staff", z.strictObject({}), async (_input, { db }) => ok(await listPausedQueues(db)));
/** How many held tasks have lapsed with nobody taking them (the board's count), and when the next will. */
export const lapsedCountAction = guardedAction("staff", z.strictObject({}), async (_input, { db }) => {
  const { count, nextLapseAt } = await readLapsed(db, 0);
  return ok({ count, nextLapseAt });
});
/** How many in_review tasks the signed-in person may review (not submitted nor held by them): the board's count. */
export const reviewsWaitingAction = guardedAction("staff", z.strictObject({}), async (_input, { db, user }) =>
  ok({ count: await reviewsWaitingFor(db, user.actor.id) }));

const id = (what: string) => z.string().regex(/^[1-9][0-9]{0,18}$/, `must be ${what}`);

/** Browser notifications: which of these events (heard by the board: each id with its task's) are a fact for the signed-in person (lib/notify/facts.ts). */
export const notificationsAction = guardedAction(
  "staff",
  z.strictObject({ events: z.array(z.strictObject({ id: id("an event id"), taskId: id("a task id") })).max(100) }),
  async ({ events }, { db, user }) => ok(await notificationFacts(db, { actorId: user.actor.id, role: user.role }, events)),
);

/** Tasks a claim would take but for another holder's reservation, with the holders: the board's "reserved by #N (who)". */
export const reservationWaitsAction = guardedAction("staff", z.strictObject({}), async (_input, { db }) =>
  ok(await reservationWaits(db, databaseClock)));
