import { hash, verify } from "@node-rs/argon2";

// Argon2id (memory-hard) with the library's defaults: 19 MiB, 2 passes — OWASP's minimum.
/**
 * The longest email and password sign-in reads. No account can have more (emails are at
 * most 254 characters, passwords 200: lib/auth/users.ts); refusing longer ones before
 * anything else keeps a sign-in from costing a hash of a megabyte, or a failure row keyed
 * by one.
 */
export const SIGN_IN_LIMITS = { email: 254, password: 1024 } as const;

/**
 * Argon2 computations one instance runs at once (PASSWORD_HASH_SLOTS, default 4): each holds
 * 19 MiB and tens of milliseconds of a core, so a flood of sign-ins queued behind each other
 * slowed every sign-in and the API with them. The excess is shed before any work instead.
 */
export const hashingSlots = () => {
  const value = Number(process.env.PASSWORD_HASH_SLOTS);
  return Number.isInteger(value) && value > 0 ? value : 4;
};

/** The error a verify beyond the slots throws, before hashing anything. */
export const HASHING_BUSY = "HashingBusy";

let hashing = 0;

async function inSlot<T>(work: () => Promise<T>): Promise<T> {
  if (hashing >= hashingSlots()) throw new Error(HASHING_BUSY);
  hashing += 1;
  try {
    return await work();
  } finally {
    hashing -= 1;
  }
}

/** Setting a password (an invite, a reset, a change) is a signed-in or link-holding act: not shed. */
export const hashPassword = (password: string) => hash(password);

/** Checking a password — what an anonymous flood of sign-ins costs — takes a slot or throws HASHING_BUSY. */
export async function verifyPassword(encoded: string, password: string): Promise<boolean> {
  return inSlot(() => verify(encoded, password).catch(() => false));
}
