import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectDatabase } from "@/db/client";
import { probePooler } from "@/db/pooler";
import { createAgentToken } from "@/lib/auth/tokens";
import { ClaimboardClient } from "@/lib/client";
import { claimNext, complete, createActor, createTask, perform } from "@/lib/tasks";
import { freshDatabase, type TestDatabase } from "./db";
import { PGBOUNCER, startPgBouncer, type Pooler } from "./pgbouncer";
import { startServer, type TestServer } from "./server";
import { openEventStream } from "./sse";
import { makeQueue } from "@/test/queues";

// DATABASE_URL through PgBouncer 1.18 in transaction mode, as a managed pooler gives it:
// a transaction may run on any server connection. .ci/run installs pgbouncer.

describe.skipIf(!PGBOUNCER)("behind PgBouncer in transaction mode", () => {
  let database: TestDatabase;
  let pooler: Pooler;
  let pooled: string;

  beforeAll(async () => {
    database = await freshDatabase();
    pooler = await startPgBouncer(database.url, { poolSize: 4 });
    pooled = pooler.via(database.url);
  });
  afterAll(async () => {
    await database?.close();
    await pooler?.stop();
  });

  test("the probe tells the pooler from a direct connection", async () => {
    expect(await probePooler(database.url)).toEqual({ prepare: true, reason: "a direct connection" });
    const behind = await probePooler(pooled);
    expect(behind.prepare).toBe(false);
    expect(behind.reason).toMatch(/PgBouncer/);
  });

  test("transactions, describe-first queries and parameterless ones at once never wedge a connection (no pipelining)", async () => {
    // postgres.js pipelines onto busy connections; PgBouncer hands the server back at a
    // COMMIT's ReadyForQuery, so what was pipelined behind it is answered to nobody and its
    // caller waits forever. connectDatabase turns pipelining off behind a pooler.
    const { db, client } = connectDatabase(pooled, { max: 2, prepare: false });
    try {
      // Through the driver the engine's transactions use (client.begin) and drizzle's own.
      const work = Promise.all(Array.from({ length: 90 }, (_, i) =>
        [
          () => client.begin((tx) => tx`SELECT ${i}::int AS n`),
          () => client`SELECT 1 AS one`,
          () => client`SELECT ${i}::int AS n`,
          () => db.transaction(async (tx) => tx.execute(sql`SELECT ${i}::int AS n`)),
          () => db.execute(sql`SELECT ${i}::int AS n`),
        ][i % 5]!()));
      const outcome = await Promise.race([work.then(() => "all answered"), new Promise((resolve) => setTimeout(() => resolve("hung"), 10_000))]);
      expect(outcome).toBe("all answered");
      expect(await db.transaction(async (tx) => (await tx.execute(sql`SHOW lock_timeout`))[0]!.lock_timeout)).toBe("5s");
      // A failed transaction rolls back and hands its connection back in working order.
      await expect(db.transaction(async (tx) => tx.execute(sql`SELECT 1/0`))).rejects.toThrow();
      expect((await db.execute(sql`SELECT 2 AS two`))[0]).toEqual({ two: 2 });
    } finally {
      await client.end({ timeout: 1 });
    }
  });

  test("a named prepared statement made in one transaction is gone in the next; unnamed ones work", async () => {
    const attempt = async (prepare: boolean) => {
      const a = postgres(pooled, { max: 1, prepare, onnotice: () => {} });
      const b = postgres(pooled, { max: 1, onnotice: () => {} });
      try {
        await a`SELECT ${1}::int AS n`; // prepared on the server connection it got
        // b takes that same connection (PgBouncer hands out the last used) and keeps it...
        const held = b.begin(async (tx) => {
          await tx`SELECT 1`;
          await new Promise((resolve) => setTimeout(resolve, 500));
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
        // ...so a's next transaction runs on another one, where its statement does not exist
        // (outside a transaction postgres.js would re-prepare and retry; inside, it cannot).
        const result = await a.begin((tx) => tx`SELECT ${2}::int AS n`).then((rows) => rows[0]?.n, (error: Error) => error.message);
        await held;
        return result;
      } finally {
        await Promise.all([a.end(), b.end()]);
      }
    };
    expect(await attempt(true)).toMatch(/prepared statement .* does not exist/);
    expect(await attempt(false)).toBe(2);
  });

  test("with prepare off the engine works through it: no duplicate claims, lock_timeout in every transaction and never left on a session", async () => {
    const app = connectDatabase(pooled, { max: 8, prepare: false });
    try {
      const inTransaction = await app.db.transaction(async (tx) => (await tx.execute<{ lock_timeout: string }>(sql`SHOW lock_timeout`))[0]?.lock_timeout);
      expect(inTransaction).toBe("5s");
      expect((await app.client`SHOW lock_timeout`)[0]?.lock_timeout).toBe("0"); // SET LOCAL: not the next client's setting

      const creator = await createActor(app.db, "user", "creator");
      const queue = await makeQueue(database.db, "pooled");
      for (let i = 0; i < 60; i++) {
        const made = await perform(createTask, { title: `t${i}`, queue }, { db: app.db, actor: creator });
        expect(made.ok).toBe(true);
      }
      const claimers = await Promise.all(Array.from({ length: 6 }, (_, i) => createActor(app.db, "agent", `agent ${i}`)));
      const claimed: string[] = [];
      await Promise.all(
        claimers.map(async (actor) => {
          for (;;) {
            const got = await perform(claimNext, { queue, start: true }, { db: app.db, actor });
            if (!got.ok) throw new Error(got.error.message);
            if (!got.value) return;
            claimed.push(got.value.id);
            const done = await perform(complete, { taskId: got.value.id, version: got.value.version }, { db: app.db, actor });
            if (!done.ok) throw new Error(done.error.message);
          }
        }),
      );
      expect(claimed.length).toBe(60);
      expect(new Set(claimed).size).toBe(60);
      const [left] = await database.client`SELECT count(*)::int AS n FROM tasks WHERE queue = ${queue} AND status <> 'done'`;
      expect(left?.n).toBe(0);
    } finally {
      await app.client.end();
    }
  });

  describe("next start with DATABASE_URL through the pooler and LISTEN_DATABASE_URL direct", () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startServer(pooled, { DATABASE_PREPARE: "false", LISTEN_DATABASE_URL: database.url });
    });
    afterAll(async () => server?.stop());

    test("the API answers and the event stream sees what is written", async () => {
      const { token } = await createAgentToken(database.db, { name: "pooled-agent" });
      const client = new ClaimboardClient({ baseUrl: server.url, token });
      await makeQueue(database.db, "pooled-http");
      const stream = await openEventStream(`${server.url}/api/v1/events?queue=pooled-http`, { token });
      try {
        const task = await client.createTask({ title: "through the pooler", queue: "pooled-http" });
        const claimed = await client.claimNext({ queue: "pooled-http", start: true });
        expect(claimed?.id).toBe(task.id);
        await client.complete(claimed!);
        await stream.until(() => stream.events().some((e) => e.type === "completed"), 15_000);
        expect(stream.events().map((e) => e.type)).toEqual(["created", "claimed", "completed"]); // claimed with started: true
        const [listeners] = await database.client`
          SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'claimboard-listen'`;
        expect(listeners?.n).toBe(1); // the LISTEN session, direct
        expect(server.output()).not.toMatch(/prepared statement|unsupported startup parameter/);
      } finally {
        stream.close();
      }
    });
  });
});
