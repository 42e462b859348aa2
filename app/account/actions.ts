"use server";

import { operationAction } from "@/lib/auth/action";
import { changeOwnPassword } from "@/lib/auth/password-reset";
import { readNotificationKinds, setNotificationKinds } from "@/lib/notify/preferences";

// The signed-in person's own account (lib/auth/password-reset.ts): staff and supervisors alike.
export const changeOwnPasswordAction = operationAction("staff", changeOwnPassword);

// Notification kinds (lib/notify/preferences.ts): read by /account and the app shell's listener.
export const notificationKindsAction = operationAction("staff", readNotificationKinds);
export const setNotificationKindsAction = operationAction("staff", setNotificationKinds);
