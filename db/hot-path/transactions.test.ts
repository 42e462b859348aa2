import { sql } from "drizzle-orm";
import { expect, test } from "vitest";
import { freshDatabase } from "@/test/db";
import type { Executor } from "@/db/client";
import { commitBehind } from ".";

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

// A write registered with commitBehind (the events' insert) is not waited for before COMMIT
// is written: its success must still be the transaction's, and its failure too.
test("a write sent behind COMMIT commits with the transaction, and its failure undoes all of it", async () => {
  const d = await freshDatabase({ migrated: false });
  const write = (tx: Executor, n: number | string) => tx.execute(sql`INSERT INTO tx_check VALUES (${n}::int)`);
  const violation = { cause: { code: "23514" } }; // drizzle's error around the check's
  try {
    await d.db.execute(sql`CREATE TABLE tx_check (n int CHECK (n < 100))`);
    const sent = await d.db.transaction(async (tx) => {
      await write(tx, 1);
      return commitBehind(tx, write(tx, 2));
    });
    expect(sent).toBe(true);

    // The failing write is the last statement: COMMIT was already on its way.
    await expect(d.db.transaction(async (tx) => {
      await write(tx, 3);
      commitBehind(tx, write(tx, 100));
    })).rejects.toMatchObject(violation);
    // A statement after it fails as aborted (25P02); the transaction throws the write's error.
    await expect(d.db.transaction(async (tx) => {
      await write(tx, 4);
      commitBehind(tx, write(tx, 101));
      await write(tx, 5);
    })).rejects.toMatchObject(violation);
    // Inside a savepoint the failure is the savepoint's alone: the outer transaction goes on.
    await d.db.transaction(async (tx) => {
      await write(tx, 6);
      await expect(tx.transaction(async (inner) => {
        await write(inner, 7);
        commitBehind(inner, write(inner, 102));
      })).rejects.toMatchObject(violation);
      await tx.transaction(async (inner) => void commitBehind(inner, write(inner, 8)));
    });
    expect((await d.client`SELECT n FROM tx_check ORDER BY n`).map((r) => r.n)).toEqual([1, 2, 6, 8]);
    // Outside such a transaction nothing is registered: the caller awaits its write itself.
    const plain = write(d.db, 9);
    expect(commitBehind(d.db, plain)).toBe(false);
    await plain;
    // Nor on a transaction's handle kept after it ended.
    let kept: Executor | undefined;
    await d.db.transaction(async (tx) => void (kept = tx));
    expect(commitBehind(kept!, Promise.resolve())).toBe(false);
  } finally {
    await d.close();
  }
});

test("transactions are made without drizzle's relational builders; the handle's db.query keeps them", async () => {
  const d = await freshDatabase();
  try {
    const [actor] = await d.db.execute<{ id: string }>(sql`INSERT INTO actors (kind, name) VALUES ('agent', 'tx-schema') RETURNING id`);
    const found = await d.db.query.actors.findFirst({ where: (t, { eq }) => eq(t.id, actor!.id) });
    expect(found?.name).toBe("tx-schema");
    const builders = await d.db.transaction(async (tx) => {
      const nested = await tx.transaction(async (inner) => Object.keys((inner as unknown as { query: object }).query).length);
      return [Object.keys((tx as unknown as { query: object }).query).length, nested];
    });
    expect(builders).toEqual([0, 0]);
  } finally {
    await d.close();
  }
});
