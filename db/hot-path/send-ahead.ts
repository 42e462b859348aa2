/**
 * A statement sent on a transaction before the answer of the one ahead of it, so both travel
 * in one round trip: postgres.js writes a query onto a connection still waiting for another
 * (pipelining, up to max_pipeline), and a reserved transaction's connection is this one
 * body's alone. The answers come back in order; an error of either aborts the transaction,
 * so the caller awaits both. Returns `statement`, with a handler attached so that its
 * rejection while the caller still awaits the one ahead is not an unhandled rejection.
 *
 * Behind a transaction-mode pooler (max_pipeline 0, db/client.ts) the driver queues it
 * instead: same answers, one round trip each. A statement first prepared on its connection
 * waits for its Describe before the next is written, so the pipelining pays from the second
 * use of a text on a connection on.
 */
export function sendAhead<T>(statement: Promise<T>): Promise<T> {
  statement.catch(() => {});
  return statement;
}
