import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema";
import { reservedTransactions, transactionsWithoutSchema } from "./hot-path";

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
    // Behind a pooler, never a query written onto a busy connection (db/hot-path/transactions.ts).
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
  reservedTransactions(client, { pooler: !prepare, lockTimeoutMs: LOCK_TIMEOUT_MS });
  const db = drizzle(client, { schema });
  transactionsWithoutSchema(db);
  return { db, client };
}
