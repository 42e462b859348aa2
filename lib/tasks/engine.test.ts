import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectDatabase, type Database } from "@/db/client";
import { claim, claimNext, createTask, ManualClock, perform, SYSTEM_ACTOR } from "@/lib/tasks";
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
