"use server";

import { applyRecommendedLease } from "@/lib/insights";
import { operationAction } from "@/lib/auth/action";

/** Supervisor: set a queue's lease to the recommendation of the window (recomputed on the server). */
export const applyRecommendedLeaseAction = operationAction("supervisor", applyRecommendedLease);
