"use server";

import { operationAction } from "@/lib/auth/action";
import { changeOwnPassword } from "@/lib/auth/password-reset";
import { keepThisSession } from "@/lib/auth/session-cookie";
import { readNotificationKinds, setNotificationKinds } from "@/lib/notify/preferences";

// The signed-in person's own account (lib/auth/password-reset.ts): staff and supervisors alike.
const changePassword = operationAction("staff", changeOwnPassword);

/** A change ends every session of the person but this one, which goes on in the new generation. */
export async function changeOwnPasswordAction(input: Parameters<typeof changePassword>[0]) {
  const result = await changePassword(input);
  if (result.ok) await keepThisSession(result.value.sessionGeneration);
  return result;
}

// Notification kinds (lib/notify/preferences.ts): read by /account and the app shell's listener.
export const notificationKindsAction = operationAction("staff", readNotificationKinds);
export const setNotificationKindsAction = operationAction("staff", setNotificationKinds);
