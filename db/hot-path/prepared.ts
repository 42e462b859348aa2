import { getTableColumns, type InferSelectModel, type SQL, type Table } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type postgres from "postgres";
import type { Executor } from "../client";
import { compileSql } from "./compile-sql";

const dialect = new PgDialect();

/**
 * The postgres.js handle under a drizzle handle or transaction: drizzle's private
 * `session.client` (in a transaction of transactions.ts's, the reserved connection). The one
 * place the hot path reads it; undefined where there is none (another driver).
 */
export function driverOf(db: object): postgres.Sql | undefined {
  return (db as { session?: { client?: postgres.Sql } }).session?.client;
}

/**
 * Runs `query` as a named prepared statement of its connection: postgres.js keeps one per
 * distinct text on each connection, so the statement is parsed once there instead of on
 * every call. drizzle sends every raw `execute` unnamed (prepare: false), so the claim's
 * CTE, a transition and the event insert were parsed and planned on every call; pgbench of
 * the same cycle runs ~40% more cycles/s prepared than unnamed (CHANGELOG.md).
 * Returns the same rows `execute` would (the driver's objects, with drizzle's type parsers,
 * which live on the same client). Falls back to `execute` on a non-postgres.js executor.
 */
export async function executePrepared<T extends Record<string, unknown>>(db: Executor, query: SQL): Promise<T[]> {
  const client = driverOf(db);
  if (typeof client?.unsafe !== "function") return (await db.execute<T>(query)) as unknown as T[];
  const { sql, params } = compileSql(query) ?? dialect.sqlToQuery(query);
  return (await client.unsafe(sql, params as postgres.ParameterOrJSON<never>[], { prepare: true })) as unknown as T[];
}

/**
 * A raw row of `SELECT <table>.*` through executePrepared as the table's typed row, mapped
 * column by column as drizzle's own select maps it (timestamps to Dates, bigints, custom
 * types): the schema is the one list of columns, so a new column needs no second edit here.
 */
export function typedRow<T extends Table>(table: T, raw: Record<string, unknown>): InferSelectModel<T> {
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = raw[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as InferSelectModel<T>;
}
