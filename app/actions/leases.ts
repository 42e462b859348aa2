"use server";

import { operationAction } from "@/lib/auth/action";
import { heldLeases } from "@/lib/tasks";

// The browser's presence renewal: every lease the signed-in person holds, renewed in one
// call while they use the board (renew: true), or only read (renew: false) to know what
// they hold and whether someone took a task over.
export const heldLeasesAction = operationAction("staff", heldLeases);
