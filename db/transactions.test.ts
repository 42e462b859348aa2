import { sql } from "drizzle-orm";
import { expect, test } from "vitest";
import { freshDatabase } from "@/test/db";

// db/client.ts runs every transaction on a reserved connection with BEGIN pipelined ahead of
// the body: what drizzle's transactions promise must still hold there.

test("a failed body rolls back everything; nested transactions roll back to their savepoint only", async () => {
  const d = await freshDatabase();
  try {
    await d.db.execute(sql`CREATE TABLE tx_check (n int)`);
    await expect(d.db.transaction(async (tx) => {
      await tx.execute(sql`INSERT INTO tx_check VALUES (0)`);
      throw new Error("undo");
    })).rejects.toThrow("undo");
    await d.db.transaction(async (tx) => {
      await tx.execute(sql`INSERT INTO tx_check VALUES (1)`);
      await expect(tx.transaction(async (inner) => {
        await inner.execute(sql`INSERT INTO tx_check VALUES (2)`);
        throw new Error("inner");
      })).rejects.toThrow("inner");
      await tx.transaction(async (inner) => inner.execute(sql`INSERT INTO tx_check VALUES (3)`));
    });
    expect((await d.client`SELECT n FROM tx_check ORDER BY n`).map((r) => r.n)).toEqual([1, 3]);
    // The first statement runs inside the transaction BEGIN was pipelined ahead of: it and
    // the next have one transaction id (in autocommit each would take its own).
    const ids = await d.db.transaction(async (tx) => {
      const id = sql`SELECT pg_current_xact_id()::text AS id`;
      const [first] = await tx.execute<{ id: string }>(id);
      const [second] = await tx.execute<{ id: string }>(id);
      return [first?.id, second?.id];
    });
    expect(ids[0]).toBeDefined();
    expect(ids[1]).toBe(ids[0]);
  } finally {
    await d.close();
  }
});
