import { hash, verify } from "@node-rs/argon2";

// Argon2id (memory-hard) with the library's defaults: 19 MiB, 2 passes — OWASP's minimum.
export const hashPassword = (password: string) => hash(password);

export async function verifyPassword(encoded: string, password: string): Promise<boolean> {
  return verify(encoded, password).catch(() => false);
}
