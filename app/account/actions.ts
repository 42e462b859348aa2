"use server";

import { guardedAction, operationAction } from "@/lib/auth/action";
import { changeOwnPassword, changeOwnPasswordInput } from "@/lib/auth/password-reset";
import { keepThisSession } from "@/lib/auth/session-cookie";
import { readNotificationKinds, setNotificationKinds } from "@/lib/notify/preferences";

// The signed-in person's own account (lib/auth/password-reset.ts): staff and supervisors alike.

/** A change ends every session of the person but this one, which goes on in the new generation. */
export const changeOwnPasswordAction = guardedAction("staff", changeOwnPasswordInput, async (input, { run }) => {
  const result = await run(changeOwnPassword, input);
  if (result.ok) await keepThisSession(result.value.sessionGeneration);
  return result;
}, "changeOwnPassword");

// Notification kinds (lib/notify/preferences.ts): read by /account and the app shell's listener.
export const notificationKindsAction = operationAction("staff", readNotificationKinds);
export const setNotificationKindsAction = operationAction("staff", setNotificationKinds);
