import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema";

export type Db = PostgresJsDatabase<typeof schema>;
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
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
    onnotice: () => {},
    // PgBouncer refuses startup parameters it does not track (lock_timeout among them):
    // behind a pooler, lock_timeout is set in each transaction instead (below).
    connection: {
      application_name: options.applicationName ?? "claimboard",
      TimeZone: "UTC",
      ...(prepare ? { lock_timeout: LOCK_TIMEOUT_MS } : {}),
    },
  });
  if (!prepare) setLockTimeoutPerTransaction(client);
  return { db: drizzle(client, { schema }), client };
}

/**
 * Behind a transaction-mode pooler a session setting would leak to whichever client gets
 * the server connection next, so every transaction sets its own (SET LOCAL). Sent without
 * waiting: postgres.js pipelines it ahead of the transaction's first statement on the same
 * connection, so it costs no round trip; should it fail, that statement fails with it.
 */
function setLockTimeoutPerTransaction(client: postgres.Sql): void {
  const begin = client.begin.bind(client) as (options: string, fn: (sql: postgres.TransactionSql) => unknown) => Promise<unknown>;
  (client as { begin: unknown }).begin = (options: string | ((sql: postgres.TransactionSql) => unknown), fn?: (sql: postgres.TransactionSql) => unknown) => {
    const body = typeof options === "function" ? options : fn!;
    return begin(typeof options === "string" ? options : "", (sql) => {
      sql.unsafe(`SET LOCAL lock_timeout = ${LOCK_TIMEOUT_MS}`).catch(() => {});
      return body(sql);
    });
  };
}
