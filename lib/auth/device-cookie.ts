import "server-only";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

// A trusted device (OWASP's "device cookie" against online guessing): a browser that signed in
// to an account gets a cookie naming a random device id, signed with the session secret over
// the account and that id. When it signs in to that account again, its attempts are counted
// on its own key (lib/auth/sign-in-backoff.ts), so a stranger's guesses, which push the
// account's key, cannot keep the account's own people out. The cookie names no account: it
// verifies only for the email typed with it. Without NEXTAUTH_SECRET there are no devices.

export const DEVICE_COOKIE = "claimboard.device";
export const DEVICE_COOKIE_MAX_AGE = 365 * 24 * 60 * 60;

const secret = () => process.env.NEXTAUTH_SECRET || null;

const mac = (key: string, account: string, id: string) =>
  createHmac("sha256", key).update(`device|${account}|${id}`).digest("base64url");

/** A fresh device cookie value for `account`, or null when there is no secret to sign it with. */
export function mintDevice(account: string): string | null {
  const key = secret();
  if (!key) return null;
  const id = randomBytes(16).toString("base64url");
  return `${id}.${mac(key, account, id)}`;
}

/** The device id of a cookie value that verifies for `account`, else null. */
export function verifiedDevice(account: string, value: string | undefined): string | null {
  const key = secret();
  if (!key || !value || value.length > 200) return null;
  const [id, signature, ...rest] = value.split(".");
  if (!id || !signature || rest.length > 0 || !/^[A-Za-z0-9_-]{22}$/.test(id)) return null;
  const expected = Buffer.from(mac(key, account, id));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given) ? id : null;
}

/** The value of the device cookie in a Cookie header. */
export function deviceFromCookieHeader(header: unknown): string | undefined {
  if (typeof header !== "string") return undefined;
  for (const part of header.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === DEVICE_COOKIE) return value.join("=");
  }
  return undefined;
}
