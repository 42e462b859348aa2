import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema";
import { trackWritesBehind, WritesBehind } from "./writes-behind";

export type Db = PostgresJsDatabase<typeof schema>;
/**
 * An open transaction. Without `query` (drizzle's relational queries): its transactions are
 * made without the schema (connectDatabase), so it has none; `db.query` still works.
 */
export type Tx = Omit<Parameters<Parameters<Db["transaction"]>[0]>[0], "query">;
/** Either a database handle or an open transaction: the engine's functions run on both. */
export type Executor = Db | Tx;

export interface Database {
  db: Db;
  /** The underlying driver; close it with `end()`. */
  client: postgres.Sql;
}

export interface DatabaseOptions {
  max?: number;
  /** Seconds to wait for a connection before the call fails as unavailable. */
  connectTimeout?: number;
  applicationName?: string;
  /**
   * Named prepared statements (default: DATABASE_PREPARE, else true). False for a
   * transaction-mode pooler (db/pooler.ts): each transaction may land on another server
   * connection, where a statement prepared on the last one does not exist.
   */
  prepare?: boolean;
  /** Called with each statement's text and parameters as it is sent (postgres.js's debug hook): tests count statements with it, bench/explain-board.ts replays them under EXPLAIN. */
  debug?: (connection: number, query: string, parameters: unknown[]) => void;
}

/** The server's pool when DB_POOL_SIZE is not set (docs/scaling.md "Sizing the pool": the measurements behind 6). */
export const SERVER_POOL_SIZE = 6;

/**
 * The server's pool from the environment (DB_POOL_SIZE), checked: a value that is not a whole
 * number from 1 to 1000 stops the server with a message naming it, rather than a pool of NaN.
 */
export function serverPoolOptions(env: Record<string, string | undefined> = process.env): { max: number } {
  const raw = env.DB_POOL_SIZE;
  if (raw === undefined || raw.trim() === "") return { max: SERVER_POOL_SIZE };
  const max = Number(raw);
  if (!Number.isInteger(max) || max < 1 || max > 1000) throw new Error(`DB_POOL_SIZE must be a whole number from 1 to 1000, got "${raw}"`);
  return { max };
}

/** lock_timeout: no engine call waits on a row lock for long; a timeout answers busy. */
export const LOCK_TIMEOUT_MS = 5000;

/** DATABASE_PREPARE as a boolean: unset (or anything but "false"/"0"/"off") is true. */
export const prepareFromEnv = () => !["false", "0", "off", "no"].includes((process.env.DATABASE_PREPARE ?? "").toLowerCase());

export function connectDatabase(url: string, options: DatabaseOptions = {}): Database {
  const prepare = options.prepare ?? prepareFromEnv();
  const client = postgres(url, {
    max: options.max ?? 10,
    connect_timeout: options.connectTimeout ?? 5,
    idle_timeout: 30,
    prepare,
    // Behind a pooler, never a query written onto a busy connection (see reservedTransactions).
    ...(prepare ? {} : { max_pipeline: 0 }),
    onnotice: () => {},
    ...(options.debug ? { debug: options.debug } : {}),
    // PgBouncer refuses startup parameters it does not track (lock_timeout among them):
    // behind a pooler, lock_timeout is set in each transaction instead (below).
    connection: {
      application_name: options.applicationName ?? "claimboard",
      TimeZone: "UTC",
      ...(prepare ? { lock_timeout: LOCK_TIMEOUT_MS } : {}),
    },
  });
  reservedTransactions(client, { pooler: !prepare });
  const db = drizzle(client, { schema });
  // drizzle builds a relational query builder for each of the schema's tables in every
  // transaction it opens (26 objects, ~14 µs a transaction: CHANGELOG.md), and the
  // engine's transactions never use them. So the session that opens transactions is left
  // without the schema; db.query, built once with the handle, keeps it.
  (db as unknown as { session: { schema: unknown } }).session.schema = undefined;
  return { db, client };
}

/**
 * Every transaction runs on a connection reserved for it: BEGIN, the body, COMMIT (ROLLBACK
 * on error). postgres.js's own begin() waits for BEGIN's answer before the body's first
 * statement is sent: one round trip that carries nothing. Here, on a direct connection,
 * BEGIN is written and the body starts at once, so the first statement follows BEGIN on the
 * same connection (postgres.js pipelines, and coalesces writes made in one tick into one):
 * a transaction costs one round trip fewer (CHANGELOG.md). If BEGIN failed, the
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
function reservedTransactions(client: postgres.Sql, { pooler }: { pooler: boolean }): void {
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
        await run(reserved.unsafe(`SET LOCAL lock_timeout = ${LOCK_TIMEOUT_MS}`));
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
