import type { Db } from "@/db/client";
import { announceLapses, ANNOUNCE_BATCH, nextLeaseEnd, type LeaseMark, databaseClock, type Clock } from "@/lib/tasks";
import { MOVES } from "@/lib/tasks/model";

// The lapse clock (docs/realtime.md "Lapses, announced"): one timer per server process, armed
// to the earliest lease end, that announces each lapse (`lapsed`, lib/tasks/claiming/announce.ts)
// within moments of it. No polling: the timer is armed from one probe of the lease index and
// moved only by what the hub hears — a claim, a renewal or a resumed lease can only add an end
// or move one later, so an event whose lease ends after the armed time costs nothing, and one
// ending before it re-arms the timer without a read. A firing announces a bounded batch; the
// database decides "once per attempt", so every instance may run one and none leads.

/** Past a lease's end by this much before announcing: the database's now() must have passed it. */
const AFTER_END_MS = 20;
/** The database could not be reached: try again this much later (a lapse is announced late, never lost). */
const RETRY_MS = 5_000;
/** While the hub's feed is held back, read at most this often (the claims it cannot hear yet). */
const HELD_BACK_PROBE_MS = 1_000;

/** The events of moves that give a lease (a claim, a renewal, a resumed lease): only they may end earlier than the timer. */
export const LEASE_EVENTS: ReadonlySet<string> = new Set(
  Object.values(MOVES).filter((m) => m.lease === "takes" || m.lease === "renews" || m.lease === "resumes").flatMap((m) => m.events),
);

/** What the clock needs of an event the hub read. */
export interface HeardEvent {
  type: string;
  /** The lease end the event's payload names (ISO), when it names one. */
  leaseUntil?: string | null;
}

export interface LapseClockStats {
  firings: number;
  probes: number;
  announced: number;
  /** Firings asked for because the hub's feed was held back (heldBack). */
  heldBack: number;
}

export class LapseClock {
  /** How far this clock has announced: lease ends at or before it are done. */
  private after: LeaseMark | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** When the timer fires (local ms), or null when nothing is held. */
  private armedAt: number | null = null;
  /** The database's clock minus this process's, from the last probe: the events' lease ends are the database's. */
  private offsetMs = 0;
  private running: Promise<void> | null = null;
  private lastHeldBackFiring = 0;
  private again = false;
  private stopped = false;
  readonly stats: LapseClockStats = { firings: 0, probes: 0, announced: 0, heldBack: 0 };

  constructor(private readonly options: { db: () => Db; clock?: Clock; batch?: number; log?: (message: string) => void }) {}

  /** The first firing walks every lease end from the beginning: lapses while no server ran are announced now. */
  start(): void {
    this.fire();
  }

  /** Stops the timer and waits for a firing in flight (its transaction commits or rolls back whole). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.disarm();
    await this.running;
  }

  /** The hub's batch: re-arm earlier if a new lease ends before the timer; read again only if an end is unknown. */
  heard(events: readonly HeardEvent[]): void {
    if (this.stopped) return;
    for (const event of events) {
      if (!LEASE_EVENTS.has(event.type)) continue;
      const end = event.leaseUntil ? Date.parse(event.leaseUntil) - this.offsetMs : NaN;
      // A firing in flight may have probed before this lease was committed: one more after it.
      if (this.running) this.again = true;
      else if (Number.isNaN(end)) this.fire();
      else if (this.armedAt === null || end < this.armedAt) this.arm(end - Date.now() + AFTER_END_MS);
    }
  }

  /**
   * The hub's feed is held back by an open transaction somewhere in the cluster: claims made
   * meanwhile are not heard until it ends, so the clock reads for itself, at most once a second
   * and only while that lasts. Lapses stay on time; the stream catches up later.
   */
  heldBack(): void {
    if (this.stopped || Date.now() - this.lastHeldBackFiring < HELD_BACK_PROBE_MS) return;
    this.lastHeldBackFiring = Date.now();
    this.stats.heldBack++;
    this.fire();
  }

  /** Whether a timer is armed, and to when (tests, metrics). */
  get armed(): number | null {
    return this.armedAt;
  }

  /** One firing at a time; woken meanwhile, one more after it. */
  private fire(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.run()
      .catch((error: unknown) => {
        this.options.log?.(`[lapse-clock] announcing lapses failed (${(error as Error)?.message ?? error}); trying again in ${RETRY_MS} ms`);
        this.arm(RETRY_MS);
      })
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.fire();
        }
      });
  }

  private async run(): Promise<void> {
    const db = this.options.db();
    const clock = this.options.clock ?? databaseClock;
    const batch = this.options.batch ?? ANNOUNCE_BATCH;
    this.stats.firings++;
    const done = await announceLapses(db, clock, this.after, batch);
    this.stats.announced += done.announced;
    if (done.last) this.after = done.last;
    // A full batch: more may have ended. The next batch is another firing, after what waits.
    if (done.scanned >= batch) return this.arm(0);
    this.stats.probes++;
    const sent = Date.now();
    const next = await nextLeaseEnd(db, clock, this.after);
    if (!next) {
      this.disarm();
      return;
    }
    this.offsetMs = next.nowMs - (sent + Date.now()) / 2;
    this.arm(next.inMs + AFTER_END_MS);
  }

  private arm(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    const delay = Math.max(0, Math.min(delayMs, 2 ** 31 - 1));
    this.armedAt = Date.now() + delay;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.armedAt = null;
      this.fire();
    }, delay);
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.armedAt = null;
  }
}
