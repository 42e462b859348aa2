import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectDatabase, type Database } from "@/db/client";
import { registry } from "@/lib/metrics/registry";
import { claim, createTask, editTask, perform, requeue, taskReadiness, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { rowCounts } from "@/test/inspect";
import { EVERYONE, STANDINGS, SUPERVISORS, WORKERS } from "./standing";

let f: EngineFixture;
let down: Database;
let amal: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  down = connectDatabase("postgres://postgres:x@127.0.0.1:1/none", { connectTimeout: 2, max: 1 });
});
afterAll(async () => {
  await down?.client.end({ timeout: 1 });
  await f?.close();
});

const refusals = () => registry().refusals.get("forbidden") ?? 0;

describe("who may perform an operation", () => {
  test("a standing outside `who` is refused with forbidden, nothing written, before the input is read", async () => {
    const task = await f.task("Supervised");
    const before = await rowCounts(f.db);
    const counted = refusals();
    expect(await perform(requeue, { taskId: task.id, version: 1 }, { db: f.db, actor: amal, standing: "staff" })).toEqual({
      ok: false, error: { code: "forbidden", message: "Only a supervisor may do this" },
    });
    // Bad input too: the standing is checked first, as the guards at the edges did.
    expect(await perform(requeue, { nonsense: true }, { db: f.db, actor: amal, standing: "agent" })).toEqual({
      ok: false, error: { code: "forbidden", message: "An agent token may not call requeue" },
    });
    expect(await perform(createTask, { title: "watching" }, { db: f.db, actor: amal, standing: "observer" })).toMatchObject({
      ok: false, error: { code: "forbidden", message: "An observer token may not call createTask" },
    });
    expect(await rowCounts(f.db)).toEqual(before);
    expect(refusals()).toBe(counted + 3);
  });

  test("the refusal opens no transaction: a database that is down still answers forbidden", async () => {
    expect(await perform(claim, { taskId: "1", version: 1 }, { db: down.db, actor: amal, standing: "observer" })).toMatchObject({
      ok: false, error: { code: "forbidden" },
    });
  });

  test("an admitted standing runs the operation; the groups nest as the roles did", async () => {
    const task = await f.task("Readable");
    expect(await perform(taskReadiness, { taskId: task.id }, { db: f.db, actor: amal, standing: "observer", clock: f.clock })).toMatchObject({ ok: true });
    expect(await perform(claim, { taskId: task.id, version: 1 }, { db: f.db, actor: amal, standing: "staff", clock: f.clock })).toMatchObject({ ok: true });
    expect(EVERYONE).toEqual(STANDINGS);
    expect(SUPERVISORS.every((s) => WORKERS.includes(s))).toBe(true);
    expect(WORKERS).not.toContain("observer");
  });

  test("editTask: the creator or last holder, or any task for a supervisor or the operator", async () => {
    const task = await f.task("Editable");
    const bilal = await f.actor("Bilal");
    const as = (standing: "staff" | "agent" | "supervisor" | "operator", version: number) =>
      perform(editTask, { taskId: task.id, version, priority: version }, { db: f.db, actor: bilal, standing, clock: f.clock });
    expect(await as("staff", 1)).toMatchObject({ ok: false, error: { code: "forbidden" } });
    expect(await as("agent", 1)).toMatchObject({ ok: false, error: { code: "forbidden" } });
    expect(await as("supervisor", 1)).toMatchObject({ ok: true, value: { version: 2 } });
    expect(await as("operator", 2)).toMatchObject({ ok: true, value: { version: 3 } });
  });
});
