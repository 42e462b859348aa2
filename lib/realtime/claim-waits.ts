import { EmptyClaims } from "./empty-claims";
import type { FeedEvent } from "./feed";

// Waiting claims (docs/claiming.md "Waiting for work"): the requests of agents that found
// nothing to claim and asked to wait. One registry per process, fed by the hub's batches of
// committed events. It decides only *when* a waiter tries again; the claim it then makes is
// the engine's, unchanged (who may, readiness, reservations, budgets, the breaker).
//
// No herd: a batch wakes, per queue, at most as many waiters as it holds events that may
// have made a task claimable; a waiter that then claims nothing waits on. What no event
// announces — a lease running out, a `notBefore` coming due — is timed: per queue with
// waiters, one timer at the earliest of them, found by one index probe when the queue's
// first waiter arrives, when an event may have moved it, and when the timer fires. No
// loop of reads: a queue nobody writes and nothing comes due in costs nothing.
//
// Every queue, waited on or not, has a change version: bumped by each event that may make a
// task claimable or move its timer, and when its timer fires. With the moment its probe last
// found at that version, it tells whether a claim that found nothing would find nothing
// again (lib/realtime/empty-claims.ts), so an idle agent's next wait opens without a claim.

/** Why a waiter was let go. */
export type WaitEnd = "woken" | "timeout" | "stopped" | "aborted";

/** Milliseconds from now until the earliest lease end (plus lock delay) or notBefore of `queue` still ahead, or null. */
export type Probe = (queue: string) => Promise<number | null>;

/** Events that may have made a task of their queue claimable. */
const OPENS_QUEUE = new Set(["queue_resumed", "breaker_reset", "settings_changed", "unarchived", "budget_raised"]);
const MAY_OPEN_TASK = new Set(["unblocked", "question_answered", "dependency_removed"]);
export function mayMakeClaimable(event: FeedEvent): boolean {
  if (OPENS_QUEUE.has(event.type) || MAY_OPEN_TASK.has(event.type)) return true;
  return event.status === "queued" && event.type !== "edited" && event.type !== "dependency_added" && event.version !== null;
}
/** Events after which the queue's earliest lease end or notBefore may have changed. */
const movesTimer = (event: FeedEvent) => event.status === "claimed" || event.status === "started" || event.status === "queued";

/** Slack past the probed moment, so the claim's own clock agrees the lease has ended. */
const TIMER_SLACK_MS = 25;

export class Waiter {
  private settle: (end: WaitEnd) => void = () => {};
  private settled: WaitEnd | null = null;
  /** Woken by the queue's timer (not an event): a success passes the wake on (see ClaimWaits.passOn). */
  byTimer = false;
  readonly ended: Promise<WaitEnd>;
  constructor(readonly queue: string, private readonly leave: (w: Waiter) => void) {
    this.ended = new Promise((resolve) => (this.settle = resolve));
  }
  /** Whether it was already let go (a wake-up that came while it was claiming). */
  get done(): boolean {
    return this.settled !== null;
  }
  end(why: WaitEnd): void {
    if (this.settled) return;
    this.settled = why;
    this.leave(this);
    this.settle(why);
  }
}

interface QueueWaits {
  waiters: Set<Waiter>;
  timer: NodeJS.Timeout | null;
  probing: boolean;
  probeAgain: boolean;
}

export class ClaimWaits {
  private readonly queues = new Map<string, QueueWaits>();
  private stopped = false;
  readonly stats = { wakes: 0, probes: 0, timerWakes: 0 };
  /** Per queue, the sequence number of its last change (see above); never-changed queues are at 0. */
  private readonly changes = new Map<string, number>();
  private sequence = 0;
  /** Per queue, the next moment a task comes due by time (Infinity: none), as probed at a version. */
  private readonly due = new Map<string, { version: number; at: number }>();
  /** Callers' claims known to find nothing, judged by the versions here. */
  readonly empties = new EmptyClaims(this);
  /** Whether the hub feeding onEvents has handed out every event notified so far (Hub.caughtUp); set by whoever taps it. */
  caughtUp: () => boolean = () => false;

  constructor(private readonly probe: Probe) {}

  /** The queue's change version now: read it before a claim, for EmptyClaims.remember. */
  version(queue: string): number {
    return this.changes.get(queue) ?? 0;
  }

  /**
   * No change on `queue` since `version` with the hub caught up, and a probe made at that
   * version found the next moment due by time still ahead: a claim that found nothing then
   * finds nothing now.
   */
  unchangedSince(queue: string, version: number): boolean {
    // An event committed but not yet read by the hub has not moved the version yet.
    if (this.stopped || !this.caughtUp() || this.version(queue) !== version) return false;
    const due = this.due.get(queue);
    return due !== undefined && due.version === version && Date.now() < due.at;
  }

  private changed(queue: string): void {
    this.changes.set(queue, ++this.sequence);
  }

  /** Waiters open now (per queue, or in all). */
  count(queue?: string): number {
    if (queue !== undefined) return this.queues.get(queue)?.waiters.size ?? 0;
    let n = 0;
    for (const q of this.queues.values()) n += q.waiters.size;
    return n;
  }

  /**
   * Enters a waiter for `queue`, before the claim it guards is tried: an event committed
   * while that claim runs still wakes it (its `ended` is then already settled).
   */
  enter(queue: string): Waiter {
    const waiter = new Waiter(queue, (w) => this.leave(w));
    if (this.stopped) {
      waiter.end("stopped");
      return waiter;
    }
    let q = this.queues.get(queue);
    if (!q) {
      q = { waiters: new Set(), timer: null, probing: false, probeAgain: false };
      this.queues.set(queue, q);
      this.reprobe(queue, q);
    }
    q.waiters.add(waiter);
    return waiter;
  }

  /** The hub's tap: wake as many waiters per queue as events may have opened a task there. */
  onEvents(events: FeedEvent[]): void {
    const opened = new Map<string, number>();
    const moved = new Set<string>();
    for (const event of events) {
      const opens = mayMakeClaimable(event);
      if (!opens && !movesTimer(event)) continue;
      this.changed(event.queue);
      if (!this.queues.has(event.queue)) continue;
      if (opens) opened.set(event.queue, (opened.get(event.queue) ?? 0) + (OPENS_QUEUE.has(event.type) ? Infinity : 1));
      // Probed again at the new version, so the queue's next due moment is known at it.
      moved.add(event.queue);
    }
    for (const [queue, n] of opened) this.wake(queue, n, false);
    for (const queue of moved) {
      const q = this.queues.get(queue);
      if (q) this.reprobe(queue, q);
    }
  }

  /**
   * A waiter woken by the timer claimed something: other tasks may have come due at the same
   * moment, which no event announces, so one more waiter tries (at most one per success).
   */
  passOn(waiter: Waiter): void {
    if (waiter.byTimer) this.wake(waiter.queue, 1, true);
  }

  /** A clean stop: every waiter answers (204) now. */
  stop(): void {
    this.stopped = true;
    for (const q of this.queues.values()) for (const w of [...q.waiters]) w.end("stopped");
  }

  private wake(queue: string, n: number, byTimer: boolean): void {
    const q = this.queues.get(queue);
    if (!q) return;
    for (const waiter of [...q.waiters]) {
      if (n-- <= 0) break;
      this.stats.wakes++;
      waiter.byTimer = byTimer;
      waiter.end("woken");
    }
  }

  private leave(waiter: Waiter): void {
    const q = this.queues.get(waiter.queue);
    if (!q) return;
    q.waiters.delete(waiter);
    if (q.waiters.size > 0) return;
    // Nobody waits here: no timer and no probe for this queue until someone does.
    if (q.timer) clearTimeout(q.timer);
    this.queues.delete(waiter.queue);
  }

  /** One probe at a time per queue; asked again meanwhile, once more after it. */
  private reprobe(queue: string, q: QueueWaits): void {
    if (q.probing) {
      q.probeAgain = true;
      return;
    }
    q.probing = true;
    this.stats.probes++;
    const version = this.version(queue);
    const started = Date.now(); // before the database's now(): the moment kept is never late
    this.probe(queue)
      .then((ms) => {
        if (this.version(queue) === version) this.due.set(queue, { version, at: ms === null ? Infinity : started + ms });
        if (this.queues.get(queue) !== q) return;
        if (q.timer) clearTimeout(q.timer);
        q.timer = null;
        if (ms === null) return;
        q.timer = setTimeout(() => {
          q.timer = null;
          this.stats.timerWakes++;
          this.changed(queue); // a task came due by time: a claim that found nothing before may not now
          this.wake(queue, 1, true);
          if (this.queues.get(queue) === q) this.reprobe(queue, q);
        }, Math.max(0, ms) + TIMER_SLACK_MS);
        q.timer.unref();
      })
      .catch((error: unknown) => console.error(`[claim-waits] probing queue ${queue} failed; its waiters wake on events only`, error))
      .finally(() => {
        q.probing = false;
        if (q.probeAgain && this.queues.get(queue) === q) {
          q.probeAgain = false;
          this.reprobe(queue, q);
        }
      });
  }
}
