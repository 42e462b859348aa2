// The hot path's tricks, in one room: every reach into postgres.js's or drizzle's internals,
// and every way the engine's statements leave sooner than the documented API would send
// them. docs/hot-path.md lists each with the measurement behind it and the test that guards
// it (driver.test.ts here: the upgrade that breaks a trick fails a test, not a benchmark).
//
// - transactions.ts: the driver's begin replaced (a reserved connection, BEGIN written ahead
//   of the body, COMMIT written behind writes nobody reads); drizzle's transactions left
//   without the schema.
// - writes-behind.ts: the writes a COMMIT need not wait for (the events' insert).
// - prepared.ts: statements run as named prepared statements, through drizzle's private
//   session.client (driverOf: the one read of it).
// - compile-sql.ts: drizzle's SQL chunks compiled in one walk.
// - per-transaction.ts: a mode keyed on the transaction's handle (a module-level WeakMap).
// - send-ahead.ts: a statement sent before the answer of the one ahead, on one transaction.

export { reservedTransactions, transactionsWithoutSchema } from "./transactions";
export { commitBehind } from "./writes-behind";
export { driverOf, executePrepared, typedRow } from "./prepared";
export { compileSql } from "./compile-sql";
export { perTransaction } from "./per-transaction";
export { sendAhead } from "./send-ahead";
