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
}

export function connectDatabase(url: string, options: DatabaseOptions = {}): Database {
  const client = postgres(url, {
    max: options.max ?? 10,
    connect_timeout: options.connectTimeout ?? 5,
    idle_timeout: 30,
    onnotice: () => {},
    // lock_timeout: no engine call waits on a row lock for long; a timeout answers busy.
    connection: { application_name: options.applicationName ?? "claimboard", TimeZone: "UTC", lock_timeout: 5000 },
  });
  return { db: drizzle(client, { schema }), client };
}
