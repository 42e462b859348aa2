"use server";

import { z } from "zod";
import { guardedAction } from "@/lib/auth/action";
import { readInbox, readLapsed, readInReview } from "@/lib/tasks";
import { queueName, ok } from "@/lib/tasks/model";

// The inbox's read, behind the same guard as its writes, for the browser to refetch on events.
export const inboxAction = guardedAction("supervisor", z.strictObject({ queue: queueName.nullable() }), async (input, { db, user }) =>
  ok(await readInbox(db, input.queue, user.actor)),
);

// Lapsed holdings nobody has taken over: a read (lease_until < now()), expiry stays lazy.
export const lapsedAction = guardedAction("supervisor", z.strictObject({}), async (_input, { db }) => ok(await readLapsed(db)));

// In_review tasks for the inbox's bulk Approve / Reject (components/supervisor/in-review.tsx).
export const inReviewAction = guardedAction("supervisor", z.strictObject({ queue: queueName.nullable() }), async (input, { db, user }) =>
  ok(await readInReview(db, input.queue, user.actor)),
);
