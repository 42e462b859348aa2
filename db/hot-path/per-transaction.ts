/**
 * State that lives while one transaction runs, keyed on the transaction's handle itself (a
 * module-level WeakMap): a mode the engine's functions see without a parameter threaded
 * through every call (oneEventWrite's gathering of events, lib/tasks/core/events.ts), and
 * that goes with the handle when the transaction ends. Holds because every function of one
 * transaction receives the same handle object drizzle gave the body; a wrapper that made a
 * new object per call would lose the mode (the events would be written one statement each).
 */
export function perTransaction<T>() {
  const state = new WeakMap<object, T>();
  return {
    get: (tx: object): T | undefined => state.get(tx),
    has: (tx: object): boolean => state.has(tx),
    set: (tx: object, value: T): void => void state.set(tx, value),
    delete: (tx: object): void => void state.delete(tx),
  };
}
