/**
 * At most `limit` calls of run() at once; the rest wait in order. Replays go through one
 * (Hub.replays): however many streams replay from an old cursor, they hold that many of
 * the pool's connections, and the API's writes find the others free.
 */
export class Gate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** Most calls that ran at once (metrics, tests). */
  peak = 0;
  /** Calls run so far (tests). */
  runs = 0;

  constructor(readonly limit: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    this.runs++;
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    this.peak = Math.max(this.peak, this.running);
    try {
      return await fn();
    } finally {
      // The place passes straight to the next waiter, so `running` never drops between them.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
