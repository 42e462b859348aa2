import "server-only";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { users } from "@/db/schema";
import { defineOperation } from "@/lib/tasks";
import { PEOPLE, fail, ok, type Result } from "@/lib/tasks/model";
import { NOTIFICATION_KINDS, type NotificationKind } from "./kinds";

// A person's notification kinds (on /account; docs/attention.md, "Notifications"): kept on the
// server, so every browser they sign in to follows one choice and the facts read it
// (lib/notify/facts.ts leaves out a kind turned off).


export const notificationKindsInput = z.strictObject({
  off: z.array(z.enum(NOTIFICATION_KINDS, `must be one of ${NOTIFICATION_KINDS.join(", ")}`)).max(NOTIFICATION_KINDS.length),
});

export interface NotificationKinds {
  off: NotificationKind[];
}

const known = (off: string[]) => off.filter((k): k is NotificationKind => (NOTIFICATION_KINDS as readonly string[]).includes(k));

/** The signed-in person's notification kinds. */
export const readNotificationKinds = defineOperation({
  name: "readNotificationKinds",
  who: PEOPLE,
  input: z.strictObject({}),
  async run(tx, _input, { actor }): Promise<Result<NotificationKinds>> {
    const [row] = await tx.select({ off: users.notificationsOff }).from(users).where(eq(users.actorId, actor.id));
    return row ? ok({ off: known(row.off) }) : fail({ code: "forbidden", message: "Only a person who signs in has notification settings" });
  },
});

/** Turns kinds off (the rest on) for the signed-in person; the same list again changes nothing. */
export const setNotificationKinds = defineOperation({
  name: "setNotificationKinds",
  who: PEOPLE,
  input: notificationKindsInput,
  async run(tx, input, { actor }): Promise<Result<NotificationKinds>> {
    const off = NOTIFICATION_KINDS.filter((k) => input.off.includes(k));
    const [row] = await tx.update(users).set({ notificationsOff: off }).where(eq(users.actorId, actor.id)).returning({ off: users.notificationsOff });
    return row ? ok({ off: known(row.off) }) : fail({ code: "forbidden", message: "Only a person who signs in has notification settings" });
  },
});
