import { createHmac, timingSafeEqual } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";

// A fence names one holding of one task — task id and attempt number — and carries an
// HMAC-SHA256 of both under the `fence` secret the database keeps (db/schema/secrets.ts), so
// nobody without the database can make one, and any instance of the server can check one.
// Form: `cbf_<task>_<attempt>_<43 chars of base64url MAC>` (docs/fences.md).

const FENCE = /^cbf_([1-9]\d{0,18})_(\d{1,10})_([A-Za-z0-9_-]{43})$/;

/** The key of every fence, made by PostgreSQL on first use (244 random bits), never changed. */
export async function readFenceKey(db: Executor): Promise<Buffer> {
  const rows = await db.execute<{ secret: string }>(sql`
    WITH made AS (INSERT INTO server_secrets (name) VALUES ('fence') ON CONFLICT (name) DO NOTHING RETURNING secret)
    SELECT secret FROM made UNION ALL SELECT secret FROM server_secrets WHERE name = 'fence'`);
  const secret = rows[0]?.secret;
  if (!secret) throw new Error("the fence secret could not be read");
  return Buffer.from(secret, "utf8");
}

const keys = new WeakMap<object, Promise<Buffer>>();

/** readFenceKey, once per database handle (a handle is one database: the key never changes). */
export function fenceKey(db: Executor): Promise<Buffer> {
  let key = keys.get(db);
  if (!key) {
    key = readFenceKey(db);
    key.catch(() => keys.delete(db));
    keys.set(db, key);
  }
  return key;
}

const mac = (key: Buffer, taskId: string, attempt: number) =>
  createHmac("sha256", key).update(`claimboard-fence:v1:${taskId}:${attempt}`).digest("base64url");

/** The fence of `attempt` of task `taskId`. */
export function makeFence(key: Buffer, taskId: string, attempt: number): string {
  return `cbf_${taskId}_${attempt}_${mac(key, taskId, attempt)}`;
}

/** What a fence names, or null when it is not one this database made (forged, truncated, altered). */
export function openFence(key: Buffer, fence: string): { taskId: string; attempt: number } | null {
  const match = FENCE.exec(fence);
  if (!match) return null;
  const [, taskId, digits, given] = match;
  const attempt = Number(digits);
  if (!Number.isSafeInteger(attempt)) return null;
  const expected = Buffer.from(mac(key, taskId!, attempt));
  const actual = Buffer.from(given!);
  return expected.length === actual.length && timingSafeEqual(expected, actual) ? { taskId: taskId!, attempt } : null;
}
