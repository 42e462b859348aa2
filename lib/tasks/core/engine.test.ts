import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectDatabase, type Database } from "@/db/client";
import { claim, claimNext, createTask, ManualClock, perform, SYSTEM_ACTOR } from "@/lib/tasks";
import { classifyDatabaseError } from "@/lib/tasks/core/engine";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { rowCounts } from "@/test/inspect";

let f: EngineFixture;
let down: Database;
beforeAll(async () => {
  f = await engineFixture();
  // Port 1 on loopback: nothing listens there, so every connection attempt is refused.
  down = connectDatabase("postgres://postgres:x@127.0.0.1:1/none", { connectTimeout: 2, max: 1 });
});
afterAll(async () => {
  await down?.client.end({ timeout: 1 });
  await f?.close();
});

describe("perform", () => {
  test("a database that is down surfaces as unavailable, not as a thrown error", async () => {
    const ctx = { db: down.db, actor: SYSTEM_ACTOR, clock: new ManualClock() };
    for (const [op, input] of [
      [createTask, { title: "never stored" }],
      [claimNext, {}],
      [claim, { taskId: "1", version: 1 }],
    ] as const) {
      const result = await perform(op as typeof createTask, input as never, ctx);
      expect(result).toEqual({
        ok: false,
        error: { code: "unavailable", message: "The database is unavailable; retry shortly" },
      });
    }
  });

  test("a database that refuses the connection is unavailable: switched off, gone, the role refused", async () => {
    const admin = f.database.connect();
    const name = new URL(f.database.url).pathname.slice(1);
    const role = `refused_${Date.now()}`;
    await admin.client.unsafe(`CREATE DATABASE "${name}_off"`);
    await admin.client.unsafe(`ALTER DATABASE "${name}_off" ALLOW_CONNECTIONS false`);
    await admin.client.unsafe(`CREATE ROLE ${role} NOLOGIN PASSWORD 'x'`);
    const refused = (url: URL) => connectDatabase(url.toString(), { connectTimeout: 5, max: 1 });
    const at = (database: string, user?: string) => {
      const url = new URL(f.database.url);
      url.pathname = `/${database}`;
      if (user) [url.username, url.password] = [user, "x"];
      return url;
    };
    const cases = { "55000": refused(at(`${name}_off`)), "3D000": refused(at(`${name}_gone`)), "28000": refused(at(name, role)) };
    try {
      for (const [code, database] of Object.entries(cases)) {
        // The driver's real error, then the engine's answer.
        await expect(database.client`SELECT 1`, code).rejects.toMatchObject({ code });
        const result = await perform(createTask, { title: "never stored" }, { db: database.db, actor: SYSTEM_ACTOR, clock: new ManualClock() });
        expect(result, code).toEqual({ ok: false, error: { code: "unavailable", message: "The database is unavailable; retry shortly" } });
      }
    } finally {
      await Promise.all(Object.values(cases).map((d) => d.client.end({ timeout: 1 })));
      await admin.client.unsafe(`DROP DATABASE "${name}_off"`);
      await admin.client.unsafe(`DROP ROLE ${role}`);
    }
  });

  test("a statement's own object_not_in_prerequisite_state (55000) is a bug, not unavailable", async () => {
    // currval before any nextval in the session: 55000 from a working connection.
    const inTx = await f.database.client.unsafe(`SELECT pg_catalog.currval(pg_get_serial_sequence('task_state', 'id'))`).catch((e: unknown) => e);
    expect(inTx).toMatchObject({ code: "55000" });
    expect(classifyDatabaseError(inTx)).toBeNull();
  });

  test("input is validated before the database is touched: bad input against a down database is invalid_request", async () => {
    const result = await perform(createTask, { title: "" }, { db: down.db, actor: SYSTEM_ACTOR });
    expect(result).toMatchObject({ ok: false, error: { code: "invalid_request", field: "title" } });
  });

  test("a bug (an error that is not a known database condition) throws and rolls the transaction back", async () => {
    const before = await rowCounts(f.db);
    const broken = {
      ...createTask,
      async run(...args: Parameters<typeof createTask.run>) {
        await createTask.run(...args);
        throw new Error("bug after the write");
      },
    };
    await expect(f.run(broken, { title: "half-made" }, SYSTEM_ACTOR)).rejects.toThrow("bug after the write");
    expect(await rowCounts(f.db)).toEqual(before);
  });
});
