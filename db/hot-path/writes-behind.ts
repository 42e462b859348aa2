import type { Executor } from "../client";
import { driverOf } from "./prepared";

/**
 * The writes of one open transaction whose answers its COMMIT need not wait for
 * (transactions.ts's reservedTransactions): sent, not yet known to have succeeded.
 */
export class WritesBehind {
  private outcomes: Promise<{ reason: unknown } | null>[] = [];

  add(write: PromiseLike<unknown>): void {
    // then() once: a lazy query (drizzle's) runs on each then, so it is never asked again.
    this.outcomes.push(Promise.resolve(write.then(() => null, (reason: unknown) => ({ reason }))));
  }

  /** Where a savepoint begins: the writes made inside it are settled when it ends. */
  mark(): number {
    return this.outcomes.length;
  }

  /** Waits for the writes since `from` and forgets them: the first failure among them, if any. */
  async settle(from = 0): Promise<{ reason: unknown } | null> {
    return (await Promise.all(this.outcomes.splice(from))).find((failed) => failed !== null) ?? null;
  }
}

const open = new WeakMap<object, WritesBehind>();

/**
 * Registers the transaction handle a reserved transaction gives its body (drizzle's session
 * client) while it is open; the returned function ends that, so a handle kept past its
 * transaction has its writes awaited by its caller, never parked where nobody settles them.
 */
export function trackWritesBehind(transaction: object, writes: WritesBehind): () => void {
  open.set(transaction, writes);
  return () => void open.delete(transaction);
}

/**
 * Lets `tx`'s COMMIT be written without waiting for `write`'s answer: for a statement whose
 * result the body does not read (the events' insert). The transaction still fails with the
 * write's error if it fails. Returns false where `tx` is not a transaction of db/client's (a
 * plain handle, another driver's): the caller awaits the write itself. A lazy query (drizzle's)
 * is started here.
 */
export function commitBehind(tx: Executor, write: PromiseLike<unknown>): boolean {
  const client = driverOf(tx);
  const writes = client ? open.get(client) : undefined;
  writes?.add(write);
  return writes !== undefined;
}
