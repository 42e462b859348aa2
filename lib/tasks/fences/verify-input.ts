import { z } from "zod";

// Pure (zod only), so the endpoint registry and the typed client can import it.

/** A fence is at most this long (its form has a fixed upper length; anything longer is not one). */
export const FENCE_MAX = 100;
export const verifyFenceInput = z.strictObject({ fence: z.string().max(FENCE_MAX, `must be at most ${FENCE_MAX} characters`) });

/** The response header of every owner call: the caller's fence for the attempt it acted as. */
export const FENCE_HEADER = "Claimboard-Fence";
