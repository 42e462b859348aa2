"use server";

import { operationAction } from "@/lib/auth/action";
import { attention } from "@/lib/attention/attention";

// The nav's counts (docs/attention.md): what waits for the signed-in person, in their standing.
export const attentionAction = operationAction("staff", attention);
