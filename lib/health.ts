import "server-only";
import { getDatabase } from "@/db";

const HEALTH_TIMEOUT_MS = 3000;

/** True when the database answers a trivial query within a few seconds. */
export async function databaseIsUp(): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), HEALTH_TIMEOUT_MS);
  });
  const probe = getDatabase()
    .client`SELECT 1`.then(() => true)
    .catch(() => false);
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
