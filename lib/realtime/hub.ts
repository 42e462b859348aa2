import postgres from "postgres";
import type { Db } from "@/db/client";
import { withinDeadline } from "@/lib/deadline";
import { GRANTS_CHANNEL } from "@/lib/auth/audit";
import { NOTIFY_CHANNEL } from "@/lib/tasks";
import { compareCursors, type Cursor } from "./cursor";
import { currentPosition, readFeed, type FeedEvent } from "./feed";
import { Gate } from "./gate";
import { Subscriber, type SubscriberOptions } from "./subscriber";

/** NOTIFYed when a token begins waiting (lib/http/fleet-waits.ts): /agents reads the fleet again. */
export const FLEET_CHANNEL = "claimboard_fleet";

/** A lost notification is covered by this periodic re-read. */
export const BACKSTOP_MS = 5_000;
/** Replay reads (streams catching up from a cursor) running at once, on the shared pool. */
export const REPLAY_CONCURRENCY = Math.max(1, Math.floor(Number(process.env.REPLAY_CONCURRENCY)) || 2);
/** Re-read this soon while committed events wait behind an open transaction. */
const HELD_BACK_RETRY_MS = 100;
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;

export interface HubStats {
  subscribers: number;
  listenConnects: number;
  listenLosses: number;
  lastListenLossAt: number | null;
  lastListenAt: number | null;
  reads: number;
}

export interface Batch {
  /** The hub's position before these events: a subscriber behind it catches up first. */
  from: Cursor;
  events: FeedEvent[];
}

/**
 * One per server process: a single LISTEN connection whose notifications only wake it;
 * each wake-up reads the new events once (gap-free, see feed.ts) and hands the batch to
 * every subscriber. NOTIFY is never trusted as data: after every (re)connect, and on a
 * timer, the hub reads the table anyway, so a notification lost while the connection was
 * down costs latency, not events.
 */
export class Hub {
  private cursor: Cursor | null = null;
  private readonly subscribers = new Set<Subscriber>();
  private readonly taps = new Set<(events: FeedEvent[]) => void>();
  private listener: postgres.Sql | null = null;
  private reading: Promise<void> | null = null;
  private dirty = false;
  private heldBack = false;
  private timers: NodeJS.Timeout[] = [];
  private reconnectDelay = RECONNECT_MIN_MS;
  private reconnectPending = false;
  private stopped = false;
  readonly stats: HubStats = {
    subscribers: 0, listenConnects: 0, listenLosses: 0, lastListenLossAt: null, lastListenAt: null, reads: 0,
  };

  /**
   * `db` is asked for on every read: the server replaces its pool when a call on it does not
   * settle in time (lib/deadline.ts), and a hub holding the old one would read from an ended
   * pool forever.
   */
  constructor(private readonly options: { db: () => Db; url: string; replayConcurrency?: number }) {
    this.replays = new Gate(options.replayConcurrency ?? REPLAY_CONCURRENCY);
  }

  /** Subscribers' replay reads pass here; the hub's own read of new events does not wait for them. */
  readonly replays: Gate;

  get db(): Db {
    return this.options.db();
  }

  async start(): Promise<void> {
    this.cursor ??= await currentPosition(this.db);
    const options = {
      max: 1,
      idle_timeout: 0,
      max_lifetime: null,
      connect_timeout: 5,
      onnotice: () => {},
      // postgres.js supports onnotify at runtime (its own listen() uses it) but does not type it.
      onnotify: (channel: string) =>
        channel === GRANTS_CHANNEL ? this.grantsChanged() : channel === FLEET_CHANNEL ? this.fleetChanged() : this.wake(),
      onclose: () => this.listenLost(),
      connection: { application_name: "claimboard-listen" },
    };
    this.listener = postgres(this.options.url, options as postgres.Options<Record<string, never>>);
    const backstop = setInterval(() => this.wake(), BACKSTOP_MS);
    backstop.unref();
    this.timers.push(backstop);
    await this.listen();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.forEach(clearTimeout);
    for (const subscriber of this.subscribers) subscriber.close();
    // A read in flight must finish before the caller may close the pool it reads from.
    await this.reading;
    await this.listener?.end({ timeout: 1 });
  }

  subscribe(options: Omit<SubscriberOptions, "hub" | "start" | "replay">, after: Cursor | null): Subscriber {
    // A start at or past the hub's cursor needs no read of its own: the hub's next batch
    // begins at its cursor. Only a subscriber behind it replays (through the gate), so a
    // thousand streams opening at once cost no reads and wait behind none.
    const start = after ?? this.cursor!;
    const replay = this.cursor === null || compareCursors(start, this.cursor) < 0;
    const subscriber = new Subscriber({ ...options, hub: this, start, replay });
    this.subscribers.add(subscriber);
    this.stats.subscribers = this.subscribers.size;
    if (this.stopped) subscriber.close(); // shutting down: the client resumes elsewhere by cursor
    subscriber.closed.then(() => {
      this.subscribers.delete(subscriber);
      this.stats.subscribers = this.subscribers.size;
    });
    return subscriber;
  }

  private readonly grantWatchers = new Set<() => void>();

  /**
   * Calls `fn` whenever an audited change may have taken a grant away (GRANTS_CHANNEL): a
   * stream re-checks its grant then. Returns the unsubscribe.
   */
  onGrantChange(fn: () => void): () => void {
    this.grantWatchers.add(fn);
    return () => this.grantWatchers.delete(fn);
  }

  private grantsChanged(): void {
    for (const fn of this.grantWatchers) fn();
  }

  private readonly fleetWatchers = new Set<() => void>();

  /**
   * Calls `fn` whenever a token begins waiting on any instance (FLEET_CHANNEL): no event of the
   * feed says so, and /agents shows it. Best effort, like any NOTIFY. Returns the unsubscribe.
   */
  onFleetChange(fn: () => void): () => void {
    this.fleetWatchers.add(fn);
    return () => this.fleetWatchers.delete(fn);
  }

  private fleetChanged(): void {
    for (const fn of this.fleetWatchers) fn();
  }

  /** Sees every batch of committed events as the hub reads it (metrics count them, a long-poll waits on them). Returns the untap. */
  tap(fn: (events: FeedEvent[]) => void): () => void {
    this.taps.add(fn);
    return () => void this.taps.delete(fn);
  }

  private readonly holdWatchers = new Set<() => void>();

  /**
   * Calls `fn` at each read that found committed events held back behind an open transaction
   * (docs/realtime.md "Delay, not loss"): a reader that cannot wait for them (the lapse clock)
   * reads what it needs itself. Returns the unsubscribe.
   */
  onHeldBack(fn: () => void): () => void {
    this.holdWatchers.add(fn);
    return () => this.holdWatchers.delete(fn);
  }

  /**
   * Whether every event notified so far has been handed out: listening, no read under way or
   * asked for, nothing held back behind an open transaction. Only a commit whose NOTIFY is
   * still on its way can be missing (lib/realtime/empty-claims.ts relies on this).
   */
  get caughtUp(): boolean {
    const s = this.stats;
    return !this.stopped && !this.reading && !this.dirty && !this.heldBack && s.lastListenAt !== null && (s.lastListenLossAt ?? 0) <= s.lastListenAt;
  }

  /** Coalesces wake-ups: one read at a time, and one more if woken meanwhile. */
  wake(): void {
    if (this.stopped) return;
    if (this.reading) {
      this.dirty = true;
      return;
    }
    this.reading = this.readNew()
      .catch((error: unknown) => console.error("[realtime] reading events failed; the backstop will retry", error))
      .finally(() => {
        this.reading = null;
        if (this.dirty) {
          this.dirty = false;
          this.wake();
        }
      });
  }

  private async readNew(): Promise<void> {
    for (;;) {
      this.stats.reads++;
      const from = this.cursor!;
      // A read the driver never settles would stop this instance's streams for good (every
      // wake-up waits for it): past the deadline the pool is replaced and the read tried again.
      const page = await withinDeadline("[realtime] reading events", () => readFeed(this.db, from), () => null);
      if (!page) {
        this.later(HELD_BACK_RETRY_MS);
        return;
      }
      if (page.events.length > 0) {
        this.cursor = page.events.at(-1)!.cursor;
        const batch: Batch = { from, events: page.events };
        for (const tap of this.taps) tap(page.events);
        for (const subscriber of this.subscribers) subscriber.receive(batch);
      }
      this.heldBack = page.heldBack;
      if (page.heldBack) {
        this.later(HELD_BACK_RETRY_MS);
        for (const fn of this.holdWatchers) fn();
      }
      if (page.events.length < 500 || this.stopped) return;
    }
  }

  private async listen(): Promise<void> {
    this.reconnectPending = false;
    try {
      await this.listener!.unsafe(`LISTEN "${NOTIFY_CHANNEL}"`);
      await this.listener!.unsafe(`LISTEN "${GRANTS_CHANNEL}"`);
      await this.listener!.unsafe(`LISTEN "${FLEET_CHANNEL}"`);
      this.stats.listenConnects++;
      this.stats.lastListenAt = Date.now();
      this.reconnectDelay = RECONNECT_MIN_MS;
      this.wake(); // catch up on whatever was notified while we were not listening
    } catch {
      this.relisten();
    }
  }

  private listenLost(): void {
    if (this.stopped) return;
    this.stats.listenLosses++;
    this.stats.lastListenLossAt = Date.now();
    this.relisten();
  }

  /** One pending reconnect at a time, backing off while the database stays away. */
  private relisten(): void {
    if (this.stopped || this.reconnectPending) return;
    this.reconnectPending = true;
    this.later(this.reconnectDelay, () => void this.listen());
    this.reconnectDelay = Math.min(this.reconnectDelay * 2, RECONNECT_MAX_MS);
  }

  private later(ms: number, fn: () => void = () => this.wake()): void {
    const timer = setTimeout(() => {
      this.timers = this.timers.filter((t) => t !== timer);
      fn();
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }
}
