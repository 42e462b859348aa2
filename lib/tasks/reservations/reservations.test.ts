import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sql } from "drizzle-orm";
import { answerQuestion, askQuestion, claim, claimNext, complete, createTask, editTask, listReservations, readTaskReadiness, release, type ActorRef } from "@/lib/tasks";
import { engineFixture, withStanding, type EngineFixture } from "@/test/engine";
import { failure, rowCounts, taskRow } from "@/test/inspect";
import { conflict, covers } from "../core/reservation";

let f: EngineFixture;
let amal: ActorRef;
let bilal: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal", "agent");
  bilal = await f.actor("Bilal", "agent");
});
afterAll(async () => {
  await f?.close();
});

const supervisorEdit = withStanding(editTask, "supervisor");
const ex = (resource: string) => ({ resource, mode: "exclusive" as const });
const sh = (resource: string) => ({ resource, mode: "shared" as const });

describe("what conflicts", () => {
  const cases: [string, string, boolean][] = [
    ["src/a.ts", "src/a.ts", true],
    ["src/**", "src/a.ts", true],
    ["src/**", "src", true],
    ["src/**", "src/api/**", true],
    ["src/**", "srcx/a.ts", false],
    ["src/a.ts", "src/b.ts", false],
    ["src/api/**", "src/a.ts", false],
    ["db/migrations/0027.sql", "db/migrations/**", true],
  ];
  test.each(cases)("%s and %s: %s (the database's reservation_covers agrees)", async (a, b, expected) => {
    expect(covers(a, b) || covers(b, a)).toBe(expected);
    const [row] = await f.db.execute<{ c: boolean }>(sql`SELECT reservation_covers(${a}, ${b}) OR reservation_covers(${b}, ${a}) AS c`);
    expect(row!.c).toBe(expected);
    expect(conflict(ex(a), sh(b))).toBe(expected);
    expect(conflict(sh(a), sh(b))).toBe(false);
  });
});

describe("claiming", () => {
  test("claim-next skips a task whose reservation a held task's covers, and takes it once the holding ends", async () => {
    const q = await f.queue("res-next");
    const first = await f.task("migrate the schema", { queue: q, priority: 9, reserves: [ex("db/**")] });
    const second = await f.task("add a migration", { queue: q, priority: 8, reserves: [ex("db/migrations/0027.sql")] });
    const free = await f.task("docs", { queue: q, priority: 1 });
    const shared = await f.task("read the schema", { queue: q, priority: 0, reserves: [sh("src/**")] });

    expect((await f.must(claimNext, { queue: q, start: true }, amal))!.id).toBe(first.id);
    // second conflicts with first's db/**: bilal gets the next free task instead.
    expect((await f.must(claimNext, { queue: q }, bilal))!.id).toBe(free.id);
    expect((await f.must(claimNext, { queue: q }, bilal))!.id).toBe(shared.id);
    expect(await f.must(claimNext, { queue: q }, bilal)).toBeNull();

    const readiness = (await readTaskReadiness(f.db, f.clock, second.id, bilal))!;
    expect(readiness.claimable).toBe(false);
    expect(readiness.reasons.find((r) => r.code === "reserved")?.message).toBe(
      `#${first.id} "migrate the schema" (Amal) holds db/**, which this task's reservations conflict with`,
    );
    const held = await f.must(listReservations, {}, bilal);
    expect(held.map((r) => [r.resource, r.mode, r.taskId, r.owner.name])).toEqual([
      ["db/**", "exclusive", first.id, "Amal"],
      ["src/**", "shared", shared.id, "Bilal"],
    ]);

    const targeted = failure(await f.run(claim, { taskId: second.id, version: second.version }, bilal), "not_ready");
    expect(targeted.message).toContain(`#${first.id} "migrate the schema" (Amal) holds db/**`);
    expect((await taskRow(f.db, second.id)).status).toBe("queued");

    await f.must(complete, { taskId: first.id, version: 2 }, amal); // claimed and started in one act: v2
    expect((await f.must(claimNext, { queue: q }, bilal))!.id).toBe(second.id);
  });

  test("two shared reservations of one resource are held together; an exclusive one waits for both", async () => {
    const q = await f.queue("res-shared");
    const a = await f.task("reader a", { queue: q, priority: 3, reserves: [sh("docs/guide.md")] });
    const b = await f.task("reader b", { queue: q, priority: 2, reserves: [sh("docs/**")] });
    const w = await f.task("writer", { queue: q, priority: 1, reserves: [ex("docs/guide.md")] });
    expect((await f.must(claimNext, { queue: q }, amal))!.id).toBe(a.id);
    expect((await f.must(claimNext, { queue: q }, bilal))!.id).toBe(b.id);
    expect(await f.must(claimNext, { queue: q }, bilal)).toBeNull();
    await f.must(release, { taskId: a.id, version: 2 }, amal);
    // a is queued again and free; the writer still conflicts with b.
    expect((await f.must(claimNext, { queue: q }, amal))!.id).toBe(a.id);
    expect((await readTaskReadiness(f.db, f.clock, w.id, amal))!.reasons.filter((r) => r.code === "reserved")).toHaveLength(2);
  });

  test("a lapsed lease holds nothing: the reservation is free the moment the lease runs out", async () => {
    const q = await f.queue("res-lapse", { leaseSeconds: 30 });
    const held = await f.task("held", { queue: q, priority: 5, reserves: [ex("infra/dns")] });
    const waiting = await f.task("waiting", { queue: q, priority: 1, reserves: [ex("infra/**")] });
    expect((await f.must(claimNext, { queue: q }, amal))!.id).toBe(held.id);
    expect(await f.must(claimNext, { queue: q }, bilal)).toBeNull();
    f.clock.advance(31);
    // The lapsed task itself comes first (it is the better candidate) and is reclaimed; the lapse freed it.
    expect((await f.must(claimNext, { queue: q }, bilal))!.id).toBe(held.id);
    expect(await f.must(claimNext, { queue: q }, amal)).toBeNull();
    expect((await taskRow(f.db, waiting.id)).status).toBe("queued");
  });
});

describe("parked on a question", () => {
  test("a task waiting for an answer keeps its reservations; the answer resumes the holding, a completion ends it", async () => {
    const q = await f.queue("res-ask", { leaseSeconds: 30 });
    const asking = await f.task("asks first", { queue: q, priority: 5, reserves: [ex("billing/**")] });
    const rival = await f.task("rival", { queue: q, priority: 1, reserves: [ex("billing/invoice.ts")] });
    const started = (await f.must(claimNext, { queue: q, start: true }, amal))!;
    const { task: parked, question } = await f.must(askQuestion, { taskId: asking.id, version: started.version, question: "Refund?" }, amal);
    f.clock.advance(100); // three lease lengths: a parked lease does not lapse
    expect(await f.must(claimNext, { queue: q }, bilal)).toBeNull();
    expect((await f.must(listReservations, {}, bilal)).filter((r) => r.taskId === asking.id)).toMatchObject([{ resource: "billing/**", leaseUntil: null }]);
    const person = await f.actor("Sara");
    const { task: resumed } = await f.must(answerQuestion, { taskId: asking.id, questionId: question.id, text: "yes" }, person);
    expect(resumed.version).toBe(parked.version + 1);
    expect(await f.must(claimNext, { queue: q }, bilal)).toBeNull();
    await f.must(complete, { taskId: asking.id, version: resumed.version }, amal);
    expect((await f.must(claimNext, { queue: q }, bilal))!.id).toBe(rival.id);
  });
});

describe("bad input changes nothing", () => {
  const bad: [string, unknown, string][] = [
    ["a '..' segment", [ex("src/../etc")], "reserves.0.resource"],
    ["over 500 characters", [ex("a".repeat(501))], "reserves.0.resource"],
    ["a leading /", [ex("/etc/passwd")], "reserves.0.resource"],
    ["** in the middle", [ex("src/**/a")], "reserves.0.resource"],
    ["a bare **", [ex("**")], "reserves.0.resource"],
    ["an unknown mode", [{ resource: "a", mode: "read" }], "reserves.0.mode"],
    ["more than 20", Array.from({ length: 21 }, (_, i) => ex(`f${i}`)), "reserves"],
  ];
  test.each(bad)("%s: 400 naming the field", async (_name, reserves, field) => {
    await f.queue("res-bad");
    const before = await rowCounts(f.db);
    const created = failure(await f.run(createTask, { title: "x", queue: "res-bad", reserves: reserves as never }, amal), "invalid_request");
    expect(created.field).toBe(field);
    expect(await rowCounts(f.db)).toEqual(before);
  });

  test("reservations change by an edit while nobody holds the task, never while it is held", async () => {
    const q = await f.queue("res-edit");
    const t = await f.task("edit me", { queue: q, reserves: [ex("a/b")] });
    const edited = await f.must(supervisorEdit, { taskId: t.id, version: 1, reserves: [sh("a/**")] }, amal);
    expect(edited.reserves).toEqual([sh("a/**")]);
    const cleared = await f.must(supervisorEdit, { taskId: t.id, version: 2, reserves: [] }, amal);
    expect(cleared.reserves).toEqual([]);
    expect((await taskRow(f.db, t.id)).reserves).toBeNull();
    const held = await f.task("held", { queue: q, reserves: [ex("c")] });
    await f.must(claim, { taskId: held.id, version: 1 }, amal);
    failure(await f.run(supervisorEdit, { taskId: held.id, version: 2, reserves: [] }, amal), "invalid_transition");
    expect((await taskRow(f.db, held.id)).reserves).toEqual([ex("c")]);
  });
});
