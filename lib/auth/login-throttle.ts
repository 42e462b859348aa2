import { clientAddress } from "@/lib/http/client-address";

// Failed sign-ins are counted in PostgreSQL (lib/auth/sign-in-backoff.ts), so a backoff holds
// across server instances and a supervisor can lift it. What stays here: which address a
// sign-in counts against, and how a refusal reaches the form.

/** The address a sign-in counts against: the API's rule (lib/http/client-address.ts). */
export function loginAddress(headers: Record<string, unknown> | undefined): string {
  return clientAddress((name) => headers?.[name]);
}

/** Thrown from authorize: next-auth hands the message to the sign-in form as the error code. */
export const TOO_MANY_ATTEMPTS = "TooManyAttempts";
