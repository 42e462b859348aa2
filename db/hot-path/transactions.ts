import type postgres from "postgres";
import { trackWritesBehind, WritesBehind } from "./writes-behind";

/**
 * Every transaction runs on a connection reserved for it: BEGIN, the body, COMMIT (ROLLBACK
 * on error). postgres.js's own begin() waits for BEGIN's answer before the body's first
 * statement is sent: one round trip that carries nothing. Here, on a direct connection,
 * BEGIN is written and the body starts at once, so the first statement follows BEGIN on the
 * same connection (postgres.js pipelines, and coalesces writes made in one tick into one):
 * a transaction costs one round trip fewer (docs/performance.md). If BEGIN failed, the
 * connection is gone (nothing else makes a bare BEGIN fail), and the body's statements fail
 * with it.
 *
 * The same holds at the other end: a write the body registered with commitBehind (the
 * events' insert, whose answer nothing in the body reads) is not waited for before COMMIT
 * is written, so COMMIT travels in the same round trip. Its answer is still awaited after:
 * if it failed, PostgreSQL answered the COMMIT of an aborted transaction with ROLLBACK,
 * and the write's error is thrown as if it had been awaited in the body.
 *
 * Behind a transaction-mode pooler (prepare off) two things differ:
 *
 * - **No pipelining.** postgres.js writes a query onto a connection still busy with another
 *   (up to max_pipeline). PgBouncer 1.18 (and Supavisor) give the server connection back at
 *   the first ReadyForQuery that says "idle", so a query pipelined behind a COMMIT has
 *   already reached a server that is no longer this client's: its answer is dropped ("got
 *   packet from server when not linked") and the client waits forever. Under load every
 *   connection of an instance wedged this way (test/scale/two-instances.test.ts). Hence
 *   max_pipeline: 0 (postgres.js's own begin() would then refuse its BEGIN as
 *   UNSAFE_TRANSACTION), and BEGIN is answered before the body starts.
 * - **lock_timeout per transaction.** A session setting would leak to whichever client gets
 *   the server connection next, so every transaction sets its own (SET LOCAL).
 */
export function reservedTransactions(client: postgres.Sql, { pooler, lockTimeoutMs }: { pooler: boolean; lockTimeoutMs: number }): void {
  (client as { begin: unknown }).begin = async (
    options: string | ((sql: postgres.TransactionSql) => unknown),
    fn?: (sql: postgres.TransactionSql) => unknown,
  ) => {
    const body = typeof options === "function" ? options : fn!;
    const mode = typeof options === "string" ? options.replace(/[^a-z ]/gi, "") : "";
    const reserved = await client.reserve();
    let broken = false;
    const run = <T>(work: Promise<T>) =>
      work.catch((error: unknown) => {
        broken ||= connectionLost(error);
        throw error;
      });
    const behind = new WritesBehind();
    // The first failure of a write sent ahead explains what followed it (25P02: aborted).
    const settle = async (from?: number) => {
      const failed = await behind.settle(from);
      if (failed) broken ||= connectionLost(failed.reason);
      return failed;
    };
    try {
      const begun = run(reserved.unsafe(`BEGIN ${mode}`));
      if (pooler) {
        await begun;
        await run(reserved.unsafe(`SET LOCAL lock_timeout = ${lockTimeoutMs}`));
      }
      let savepoints = 0;
      const transaction = Object.assign(reserved, {
        // drizzle's nested transaction (tx.transaction): a savepoint, rolled back to on error.
        async savepoint(inner: (sql: postgres.TransactionSql) => unknown) {
          const name = `s${++savepoints}`;
          const from = behind.mark();
          await run(reserved.unsafe(`SAVEPOINT ${name}`));
          try {
            const value = await inner(transaction);
            // Released only over writes known to have succeeded.
            const failed = await settle(from);
            if (failed) throw failed.reason;
            await run(reserved.unsafe(`RELEASE SAVEPOINT ${name}`));
            return value;
          } catch (error) {
            const failed = await settle(from);
            if (!broken) await reserved.unsafe(`ROLLBACK TO SAVEPOINT ${name}`).catch(() => {});
            throw failed ? failed.reason : error;
          }
        },
      }) as unknown as postgres.TransactionSql;
      const untrack = trackWritesBehind(transaction, behind);
      let result: unknown;
      try {
        // Promise.all also holds the body's rejection when BEGIN's comes first.
        [, result] = await Promise.all([begun, run(Promise.resolve().then(() => body(transaction)))]);
      } catch (error) {
        const failed = await settle();
        if (!broken) await reserved.unsafe("ROLLBACK").catch(() => {});
        throw failed ? failed.reason : error;
      } finally {
        untrack();
      }
      const committing = run(reserved.unsafe("COMMIT"));
      const failed = await settle();
      if (failed) {
        await committing.catch(() => {}); // answered ROLLBACK: the transaction was aborted
        throw failed.reason;
      }
      const { command } = await committing;
      if (command !== "COMMIT") throw new Error(`COMMIT was answered ${command}: the transaction did not commit`);
      return result;
    } finally {
      // A connection that died is postgres.js's to replace; handing it back would reopen it.
      if (!broken) reserved.release();
    }
  };
}

/** Whether a driver error means the connection itself is gone (not a statement's error). */
function connectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("CONNECTION_") || ["ECONNRESET", "EPIPE", "ETIMEDOUT"].includes(code));
}

/**
 * drizzle builds a relational query builder for each of the schema's tables in every
 * transaction it opens (26 objects, ~14 µs a transaction: docs/performance.md), and the
 * engine's transactions never use them. So the session that opens transactions is left
 * without the schema (a private field of drizzle's session); db.query, built once with the
 * handle, keeps it.
 */
export function transactionsWithoutSchema(db: object): void {
  (db as unknown as { session: { schema: unknown } }).session.schema = undefined;
}
