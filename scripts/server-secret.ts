import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { DATA_DIR } from "../db/project-database";

/**
 * The server's signing secret (sessions; the key that seals webhook secrets): NEXTAUTH_SECRET,
 * else one kept in the data folder, made on first use. `npm start` and the CLI read the same.
 */
export async function serverSecret(): Promise<string> {
  if (process.env.NEXTAUTH_SECRET) return process.env.NEXTAUTH_SECRET;
  const file = path.join(DATA_DIR, "auth-secret");
  const existing = await fs.readFile(file, "utf8").catch(() => null);
  if (existing?.trim()) return existing.trim();
  const secret = randomBytes(32).toString("hex");
  await fs.mkdir(DATA_DIR, { recursive: true });
  await fs.writeFile(file, secret, { mode: 0o600 });
  return secret;
}
