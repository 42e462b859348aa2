/**
 * A position in the event feed: (transaction id, event id). The feed is ordered by this
 * pair and only ever contains transactions below the visibility horizon, so everything
 * at or before a cursor has been seen and nothing can appear behind it later — the
 * property a gap-free resume needs although event ids are assigned before commit.
 */
export interface Cursor {
  txId: bigint;
  eventId: bigint;
}

const MAX = (1n << 63n) - 1n;

export function formatCursor(cursor: Cursor): string {
  return `${cursor.txId}:${cursor.eventId}`;
}

/** Parses `"<txId>:<eventId>"`; null when malformed. */
export function parseCursor(text: string): Cursor | null {
  const match = /^(\d{1,19}):(\d{1,19})$/.exec(text.trim());
  if (!match) return null;
  const txId = BigInt(match[1]!);
  const eventId = BigInt(match[2]!);
  if (txId > MAX || eventId > MAX) return null;
  return { txId, eventId };
}

export function compareCursors(a: Cursor, b: Cursor): number {
  if (a.txId !== b.txId) return a.txId < b.txId ? -1 : 1;
  if (a.eventId !== b.eventId) return a.eventId < b.eventId ? -1 : 1;
  return 0;
}
