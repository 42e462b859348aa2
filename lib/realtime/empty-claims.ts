// Claims known to find nothing (docs/claiming.md "Waiting for work", the cost of a wait): an
// idle agent opens a wait, waits it out, and opens the next — each opening a claim that
// finds what the last one found, nothing. A waiting claim's first try is skipped when its
// caller's last empty claim of the same shape saw its queue at the version it has now: no
// event since that may have opened a task or moved the queue's timer, and no moment come
// due by time (lib/realtime/claim-waits.ts keeps both). That is the promise a wait already
// rests on while it is held — it is woken only by events and its queue's timer — stretched
// across the gap between two waits. A real claim still runs at least once every MAX_AGE_MS
// per caller and shape, which bounds what nothing announces (a candidate skipped because
// another transaction held its row, which then let go unchanged) to the length of a long wait.

/** What the change versions of queues tell (ClaimWaits). */
export interface QueueVersions {
  version(queue: string): number;
  unchangedSince(queue: string, version: number): boolean;
}

interface Mark {
  queue: string;
  version: number;
  at: number;
}

/** A real claim at least this often per caller and shape: the longest wait (60 s). */
const MAX_AGE_MS = 60_000;
/** Callers × shapes remembered; the oldest forgotten past it (forgetting only costs a claim). */
const MAX_MARKS = 10_000;

export class EmptyClaims {
  private readonly marks = new Map<string, Mark>();
  readonly stats = { skipped: 0 };

  constructor(private readonly versions: QueueVersions) {}

  /** The claim keyed `key` found nothing on `queue`, tried when the queue was at `version` (read before the claim began). */
  remember(key: string, queue: string, version: number): void {
    this.marks.delete(key); // re-inserted last: the Map's order is the age order
    this.marks.set(key, { queue, version, at: Date.now() });
    if (this.marks.size > MAX_MARKS) this.marks.delete(this.marks.keys().next().value!);
  }

  /** Whether the claim keyed `key` on `queue` would find nothing now, as it did last time; counts a skip when so. */
  stillEmpty(key: string, queue: string): boolean {
    const mark = this.marks.get(key);
    if (!mark || mark.queue !== queue || Date.now() - mark.at > MAX_AGE_MS) return false;
    if (!this.versions.unchangedSince(queue, mark.version)) return false;
    this.stats.skipped++;
    return true;
  }
}
