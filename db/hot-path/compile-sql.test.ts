import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { expect, test } from "vitest";
import { tasks } from "@/db/schema";
import { compileSql } from ".";

const dialect = new PgDialect();

test("builds exactly drizzle's text and values for what the engine's statements are made of", () => {
  const at = new Date("2026-12-04T01:02:03.004Z");
  const rows = [1n, 2n].map((id) => sql`(${id}::bigint, ${"q"}, ${null}, ${at})`);
  const shapes = [
    sql`SELECT 1`,
    sql``,
    sql.empty(),
    sql`SELECT ${1}, ${"two"}, ${true}, ${3n}, ${null}, ${undefined} AS skipped`,
    sql`INSERT INTO t VALUES ${sql.join(rows, sql`, `)} RETURNING ${sql.raw("id")}`,
    sql`WITH a AS (${sql`SELECT ${7}::int AS n WHERE ${sql`x = ${"y"}`}`}) SELECT * FROM a LIMIT ${sql.raw(String(1))}`,
    sql`SELECT * FROM t WHERE id IN ${[1, 2, sql`${3} + 1`]} AND tag IN ${["a"]}`,
    sql`${sql`${sql``}`}${"lead"} then text`,
  ];
  // The typings ("none" for every raw value) are for drivers that type parameters; postgres.js ignores them.
  for (const query of shapes) {
    const { sql: text, params } = dialect.sqlToQuery(query);
    expect(compileSql(query)).toEqual({ sql: text, params });
  }
});

test("answers null for what it does not build, so drizzle's builder is used", () => {
  expect(compileSql(sql`SELECT ${tasks.id} FROM ${tasks}`)).toBeNull();
  expect(compileSql(sql`SELECT ${"x"}`.inlineParams())).toBeNull();
  expect(compileSql(sql`SELECT ${sql`${"x"}`.inlineParams()}`)).toBeNull();
  expect(compileSql(sql`SELECT ${{ a: 1 }}`)).toBeNull();
  expect(compileSql(sql`SELECT ${sql.placeholder("p")}`)).toBeNull();
});
