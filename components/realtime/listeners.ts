import type { LiveEvent } from "./invalidate";

// Components that act on events themselves (beyond invalidating queries) — the lease
// keeper, which tells a person their task was taken over — hear each batch here.
const listeners = new Set<(events: LiveEvent[]) => void>();

export function onLiveEvents(listener: (events: LiveEvent[]) => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

export function emitLiveEvents(events: LiveEvent[]): void {
  if (events.length === 0) return;
  for (const listener of listeners) listener(events);
}
