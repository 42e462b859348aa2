import { compareCursors, type Cursor } from "./cursor";
import { readFeed, type FeedEvent } from "./feed";
import type { Batch, Hub } from "./hub";

export interface StreamFilter {
  queue?: string;
  taskId?: string;
}

export interface SubscriberOptions {
  hub: Hub;
  filter: StreamFilter;
  start: Cursor;
  /** Read from `start` before taking the hub's batches (a start behind the hub's cursor). */
  replay: boolean;
  /** Hands matching events to the client; false when the client's buffer is full. */
  send(events: FeedEvent[]): boolean;
  /** Most events a subscriber may have queued before it is dropped (it resumes by cursor). */
  maxPending?: number;
}

/** Events per replay read: one read holds a connection only this long. */
const REPLAY_PAGE = 500;

const matches = (filter: StreamFilter, event: FeedEvent) =>
  (!filter.queue || event.queue === filter.queue) && (!filter.taskId || event.taskId === filter.taskId);

/**
 * One client of the stream. It first replays from its cursor, then takes the hub's
 * batches in order; a batch that starts past its cursor means it fell behind (or is still
 * replaying), so it reads the gap itself. Cursors make both paths idempotent: nothing
 * is sent twice, nothing skipped. Work is serialised per subscriber, so a slow one never
 * delays the hub or the others; past maxPending it is closed and resumes by cursor.
 */
export class Subscriber {
  private cursor: Cursor;
  private work: Promise<void> = Promise.resolve();
  private pending = 0;
  private resolveClosed!: () => void;
  readonly closed = new Promise<void>((resolve) => (this.resolveClosed = resolve));
  private isClosed = false;

  constructor(private readonly options: SubscriberOptions) {
    this.cursor = options.start;
    if (options.replay) this.enqueue(() => this.catchUp());
  }

  /** How far this subscriber has got: its start until an event has been read past it. */
  get position(): Cursor {
    return this.cursor;
  }

  receive(batch: Batch): void {
    if (this.isClosed) return;
    this.pending += batch.events.length;
    if (this.pending > (this.options.maxPending ?? 10_000)) {
      this.close();
      return;
    }
    this.enqueue(async () => {
      this.pending -= batch.events.length;
      if (compareCursors(this.cursor, batch.from) < 0) await this.catchUp();
      this.deliver(batch.events);
    });
  }

  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.resolveClosed();
  }

  private enqueue(step: () => Promise<void>): void {
    this.work = this.work
      .then(() => (this.isClosed ? undefined : step()))
      .catch((error: unknown) => {
        if (!this.isClosed) console.error("[realtime] a subscriber's read failed; closing it (its client resumes by cursor)", error);
        this.close();
      });
  }

  /**
   * Reads from the cursor up to the visibility horizon, a page at a time, filtered in SQL.
   * Each page waits for a place at the hub's replay gate, so many replaying streams take
   * turns on a few connections instead of queueing the whole pool behind them.
   */
  private async catchUp(): Promise<void> {
    const { hub, filter } = this.options;
    for (;;) {
      const page = await hub.replays.run(() => readFeed(hub.db, this.cursor, REPLAY_PAGE, filter));
      this.deliver(page.events);
      if (this.isClosed) return;
      // Past the non-matching events this read skipped, so the hub's next batch is not a gap.
      if (compareCursors(page.through, this.cursor) > 0) this.cursor = page.through;
      if (page.events.length < REPLAY_PAGE) return;
    }
  }

  private deliver(events: FeedEvent[]): void {
    // A read that was in flight when the subscriber was closed must not reach the client:
    // it has already been told where to resume, and would get these events twice.
    if (this.isClosed) return;
    const fresh = events.filter((e) => compareCursors(e.cursor, this.cursor) > 0);
    if (fresh.length === 0) return;
    this.cursor = fresh.at(-1)!.cursor;
    const wanted = fresh.filter((e) => matches(this.options.filter, e));
    if (wanted.length > 0 && !this.options.send(wanted)) this.close();
  }
}
