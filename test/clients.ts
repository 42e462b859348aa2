import postgres from "postgres";
import type { Database } from "@/db/client";
import type { TestDatabase } from "./db";

/**
 * `n` independent single-connection pools, each already connected (warmed with SELECT 1),
 * so a Promise.all over them is a barrier: no call waits behind a connection handshake
 * while the others run, and no two calls share a connection.
 */
export async function independentClients(database: TestDatabase, n: number): Promise<Database[]> {
  const clients = Array.from({ length: n }, () => database.connect({ max: 1 }));
  await Promise.all(clients.map((c) => c.client`SELECT 1`));
  return clients;
}

export interface RowLockHolder {
  /** Rolls the holding transaction back and closes its connection. */
  release(): Promise<void>;
}

/**
 * Opens a transaction on a connection of its own and locks the task row FOR UPDATE, as an
 * in-flight claim would, keeping it open until release().
 */
export async function holdRowLock(url: string, taskId: string): Promise<RowLockHolder> {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  const reserved = await client.reserve();
  await reserved`BEGIN`;
  const locked = await reserved`SELECT id FROM task_state WHERE id = ${taskId}::bigint FOR UPDATE`;
  if (locked.length !== 1) throw new Error(`task ${taskId} not found to lock`);
  return {
    async release() {
      await reserved`ROLLBACK`;
      reserved.release();
      await client.end({ timeout: 5 });
    },
  };
}
