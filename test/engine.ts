import type { z } from "zod";
import type { Db } from "@/db/client";
import { createActor, createTask, ManualClock, perform, type ActorRef, type Operation, type Task } from "@/lib/tasks";
import type { Standing } from "@/lib/tasks/core/standing";
import type { Result } from "@/lib/tasks/core/types";
import { freshDatabase, type TestDatabase } from "./db";
import { makeQueue } from "./queues";

export interface EngineFixture {
  database: TestDatabase;
  db: Db;
  clock: ManualClock;
  actor(name: string, kind?: "user" | "agent"): Promise<ActorRef>;
  /** Runs an operation as `actor` on the fixture's clock. */
  run<S extends z.ZodType, O>(op: Operation<S, O>, input: z.input<S>, actor: ActorRef, db?: Db): Promise<Result<O>>;
  /** Like run, but the result must be ok. */
  must<S extends z.ZodType, O>(op: Operation<S, O>, input: z.input<S>, actor: ActorRef, db?: Db): Promise<O>;
  /** A task, in `input.queue` (made here when new: the one-line helper makes its queue too). */
  task(title?: string, input?: Omit<z.input<typeof createTask.input>, "title">): Promise<Task>;
  /** Makes a queue (test/queues.ts) and returns its name. */
  queue(name: string, settings?: Parameters<typeof makeQueue>[2]): Promise<string>;
  close(): Promise<void>;
}

/** A fresh database, a manual clock, and one-line helpers for tasks and actors. */
export async function engineFixture(): Promise<EngineFixture> {
  const database = await freshDatabase();
  const clock = new ManualClock();
  const creator = await createActor(database.db, "user", "Creator");
  let count = 0;
  const fixture: EngineFixture = {
    database,
    db: database.db,
    clock,
    actor: (name, kind = "user") => createActor(database.db, kind, name),
    run: (op, input, actor, db = database.db) => perform(op, input, { db, actor, clock }),
    async must(op, input, actor, db) {
      const result = await fixture.run(op, input, actor, db);
      if (!result.ok) throw new Error(`${op.name} failed: ${result.error.code}: ${result.error.message}`);
      return result.value;
    },
    async task(title = `Task ${++count}`, input = {}) {
      if (input.queue) await makeQueue(database.db, input.queue);
      return fixture.must(createTask, { title, ...input }, creator);
    },
    queue: (name, settings) => makeQueue(database.db, name, settings),
    close: () => database.close(),
  };
  return fixture;
}

/**
 * `count` queued tasks in `queue` (made first), written as bench/ seeds write them: one INSERT
 * into task_state (the sets' statement triggers take them all at once) and their words, oldest
 * first, priority `i % priorities`; then ANALYZE, so that plans see the statistics of a
 * freshly seeded queue.
 */
export async function seedQueued(f: EngineFixture, queue: string, count: number, priorities = 1): Promise<void> {
  await f.queue(queue);
  await f.database.client`
    INSERT INTO task_state (queue, priority, created_at)
    SELECT ${queue}, i % ${priorities}, now() - make_interval(secs => i) FROM generate_series(1, ${count}::int) i`;
  await f.database.client`INSERT INTO task_content (id, title) SELECT id, 'seeded ' || id FROM task_state WHERE queue = ${queue}`;
  await f.database.client`ANALYZE task_state, task_content, task_queued, task_held, task_lease`;
}

/**
 * `op` run with `standing` in its context, as a surface passes it: a supervisor's edit of any
 * task, say, where the fixture's own calls carry no standing.
 */
export function withStanding<S extends z.ZodType, O>(op: Operation<S, O>, standing: Standing): Operation<S, O> {
  return { ...op, run: (tx, input, ctx) => op.run(tx, input, { ...ctx, standing }) };
}
