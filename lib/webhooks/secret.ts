import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";

// A webhook's signing secret (Standard Webhooks: `whsec_` + base64 of the key bytes). It signs
// every delivery, so the server must read it back: it is sealed at rest with AES-256-GCM under a
// key derived (HKDF) from NEXTAUTH_SECRET, the server secret sessions are signed with already.
// A changed server secret leaves sealed secrets unreadable: their deliveries fail saying so,
// and a new webhook (a new secret) is the remedy (docs/webhooks.md).

const PREFIX = "whsec_";

export function newWebhookSecret(): string {
  return PREFIX + randomBytes(24).toString("base64");
}

function sealingKey(): Buffer {
  const secret = process.env.NEXTAUTH_SECRET;
  if (!secret) throw new Error("NEXTAUTH_SECRET is not set: webhook secrets cannot be sealed");
  return Buffer.from(hkdfSync("sha256", secret, "claimboard", "webhook signing secrets", 32));
}

/** iv.tag.ciphertext, each base64. */
export function sealSecret(secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealingKey(), iv);
  const body = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString("base64")).join(".");
}

/** The secret, or null when it was sealed under another server secret (or tampered with). */
export function unsealSecret(sealed: string): string | null {
  try {
    const [iv, tag, body] = sealed.split(".").map((part) => Buffer.from(part, "base64"));
    const decipher = createDecipheriv("aes-256-gcm", sealingKey(), iv!);
    decipher.setAuthTag(tag!);
    return Buffer.concat([decipher.update(body!), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under the secret's key bytes, by the Standard Webhooks library. */
export function signDelivery(secret: string, id: string, timestamp: number, body: string): string {
  return new Webhook(secret).sign(id, new Date(timestamp * 1000), body);
}
