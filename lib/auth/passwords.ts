import { hash, verify } from "@node-rs/argon2";

// Argon2id (memory-hard) with the library's defaults: 19 MiB, 2 passes — OWASP's minimum.
/**
 * The longest email and password sign-in reads. No account can have more (emails are at
 * most 254 characters, passwords 200: lib/auth/users.ts); refusing longer ones before
 * anything else keeps a sign-in from costing a hash of a megabyte, or a failure row keyed
 * by one.
 */
export const SIGN_IN_LIMITS = { email: 254, password: 1024 } as const;

export const hashPassword = (password: string) => hash(password);

export async function verifyPassword(encoded: string, password: string): Promise<boolean> {
  return verify(encoded, password).catch(() => false);
}
