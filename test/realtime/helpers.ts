import { TransactionRollbackError } from "drizzle-orm";
import type { z } from "zod";
import type { Db, Tx } from "@/db/client";
import { claim, createActor, createTask, databaseClock, perform, type ActorRef, type Operation } from "@/lib/tasks";
import { formatCursor, parseCursor } from "@/lib/realtime/cursor";
import type { FeedEvent } from "@/lib/realtime/feed";
import { Hub } from "@/lib/realtime/hub";
import type { StreamFilter, Subscriber } from "@/lib/realtime/subscriber";
import { appendEvents, type NewEvent } from "@/lib/tasks/core/events";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { makeQueue } from "@/test/queues";

// Shared by the realtime suites (hub level in lib/realtime, HTTP level in test/realtime).

export interface HubFixture {
  database: TestDatabase;
  hub: Hub;
  /** Someone to write events as. */
  actor: ActorRef;
  /** Stops the hub before closing the pool it reads from. */
  close(): Promise<void>;
}

/** A fresh database with a started hub on it: the hub-level suites' fixture. */
export async function hubFixture(actorName: string): Promise<HubFixture> {
  const database = await freshDatabase();
  const hub = new Hub({ db: () => database.db, url: database.url });
  await hub.start();
  const actor = await createActor(database.db, "user", actorName);
  return {
    database,
    hub,
    actor,
    async close() {
      await hub.stop();
      await database.close();
    },
  };
}

/**
 * task_events as the stream must deliver it: `tx:id` cursors in (tx_id, id) order,
 * optionally only after a cursor and only of a queue or task.
 */
export async function tableCursors(
  database: TestDatabase,
  options: { after?: string; queue?: string; taskId?: string } = {},
): Promise<string[]> {
  const sql = database.client;
  const after = options.after === undefined ? null : parseCursor(options.after);
  if (options.after !== undefined && !after) throw new Error(`not a cursor: ${options.after}`);
  const rows = await sql<{ cursor: string }[]>`
    SELECT tx_id::text || ':' || id::text AS cursor FROM task_events
    WHERE (${after === null} OR (tx_id, id) > (${after?.txId.toString() ?? "0"}::text::xid8, ${after?.eventId.toString() ?? "0"}::bigint))
      AND (${options.queue ?? null}::text IS NULL OR queue = ${options.queue ?? null})
      AND (${options.taskId ?? null}::bigint IS NULL OR task_id = ${options.taskId ?? null}::bigint)
    ORDER BY tx_id, id`;
  return rows.map((r) => r.cursor);
}

/** The cursor `tx:id` of the newest event in (tx_id, id) order; "0:0" when there is none. */
export async function lastTableCursor(database: TestDatabase): Promise<string> {
  const [row] = await database.client<{ cursor: string }[]>`
    SELECT tx_id::text || ':' || id::text AS cursor FROM task_events ORDER BY tx_id DESC, id DESC LIMIT 1`;
  return row?.cursor ?? "0:0";
}

/** Bounded poll for a condition the test expects to become true (never a race-maker). */
export async function until(check: () => boolean, what: string | (() => string), timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === "string" ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** `n` createTask calls in a row on `db`; returns performance.now() when each committed, by task id. */
export async function createTasks(
  db: Db,
  actor: ActorRef,
  n: number,
  input: { queue?: string; title?: string } = {},
): Promise<Map<string, number>> {
  const committedAt = new Map<string, number>();
  if (input.queue) await makeQueue(db, input.queue);
  for (let i = 0; i < n; i++) {
    const result = await perform(createTask, { title: `${input.title ?? "Task"} ${i}`, queue: input.queue }, { db, actor });
    if (!result.ok) throw new Error(`createTask: ${result.error.message}`);
    committedAt.set(result.value.id, performance.now());
  }
  return committedAt;
}

/** The p-th percentile (0–100) of `values`, nearest rank. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** The event id half of a `tx:id` cursor. */
export const eventIdOf = (cursor: string) => cursor.slice(cursor.indexOf(":") + 1);

export interface OpenTransaction {
  /** The open transaction itself (Drizzle), for statements of the test's own. */
  tx: Tx;
  /** Runs an engine operation's body inside this transaction, as perform would but without committing. */
  run<S extends z.ZodType, O>(op: Operation<S, O>, input: z.input<S>, actor: ActorRef): Promise<O>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/**
 * A transaction on a connection of its own that stays open until commit() or rollback():
 * what an engine call looks like from outside while it is between its INSERT and its COMMIT.
 */
export async function openTransaction(database: TestDatabase): Promise<OpenTransaction> {
  const pool = database.connect({ max: 1 });
  let decide!: (commit: boolean) => void;
  const decision = new Promise<boolean>((resolve) => (decide = resolve));
  let opened!: (tx: Tx) => void;
  const ready = new Promise<Tx>((resolve) => (opened = resolve));
  const done = pool.db
    .transaction(async (tx) => {
      opened(tx);
      if (!(await decision)) tx.rollback();
    })
    .catch((error: unknown) => {
      if (!(error instanceof TransactionRollbackError)) throw error;
    });
  const tx = await Promise.race([ready, done.then(() => Promise.reject(new Error("the transaction ended early")))]);
  const finish = async (commit: boolean) => {
    decide(commit);
    await done;
    await pool.client.end({ timeout: 5 });
  };
  return {
    tx,
    async run(op, input, actor) {
      const result = await op.run(tx, op.input.parse(input), { actor, clock: databaseClock });
      if (!result.ok) throw new Error(`${op.name}: ${result.error.message}`);
      return result.value;
    },
    commit: () => finish(true),
    rollback: () => finish(false),
  };
}

export interface Collector {
  events: FeedEvent[];
  /** performance.now() at which each of `events` was handed over. */
  at: number[];
  cursors(): string[];
  closed(): boolean;
  /** The cursor of the newest event received (cheap enough to poll). */
  last(): string | undefined;
  subscriber: Subscriber;
}

/** A hub subscriber that keeps everything it is sent. */
export function collect(hub: Hub, after: string | null = null, filter: StreamFilter = {}): Collector {
  const events: FeedEvent[] = [];
  const at: number[] = [];
  const start = after === null ? null : parseCursor(after);
  const subscriber = hub.subscribe(
    {
      filter,
      send(batch) {
        const now = performance.now();
        for (const event of batch) {
          events.push(event);
          at.push(now);
        }
        return true;
      },
    },
    start,
  );
  let closed = false;
  void subscriber.closed.then(() => (closed = true));
  return {
    events,
    at,
    closed: () => closed,
    cursors: () => events.map((e) => formatCursor(e.cursor)),
    last: () => (events.length === 0 ? undefined : formatCursor(events.at(-1)!.cursor)),
    subscriber,
  };
}

/** `pairs` × (createTask, then claim of that task by `actor`): two transitions, two events each pair. */
export async function createAndClaim(db: Db, actor: ActorRef, pairs: number, queue = "default"): Promise<void> {
  await makeQueue(db, queue);
  for (let i = 0; i < pairs; i++) {
    const created = await perform(createTask, { title: `Pair ${i}`, queue }, { db, actor });
    if (!created.ok) throw new Error(`createTask: ${created.error.message}`);
    const claimed = await perform(claim, { taskId: created.value.id, version: 1 }, { db, actor });
    if (!claimed.ok) throw new Error(`claim: ${claimed.error.message}`);
  }
}

/**
 * `n` heartbeat events of `taskId`, each in a transaction of its own with its NOTIFY (the
 * engine's append, without the rest of a transition): a burst that costs the database little,
 * so a fan-out measurement measures the fan-out. Returns performance.now() at each commit, by event id.
 */
export async function heartbeatBurst(db: Db, actor: ActorRef, taskId: string, queue: string, n: number): Promise<Map<string, number>> {
  const committedAt = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const [id] = await appendEvents(db, databaseClock, [{ taskId: BigInt(taskId), queue, type: "heartbeat", actorId: actor.id, payload: { burst: i } } as unknown as NewEvent]); // synthetic: only the fan-out is measured
    committedAt.set(id!.toString(), performance.now());
  }
  return committedAt;
}
