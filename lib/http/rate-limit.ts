/**
 * Token buckets in this server process's memory: `capacity` requests at once, refilled at
 * `perSecond`. With several server instances each keeps its own buckets, so the
 * effective limit is per instance (documented in docs/api.md).
 */
export class RateLimiter {
  private buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly capacity: number,
    private readonly perSecond: number,
    private readonly maxKeys = 100_000,
  ) {}

  /** Takes one request's worth; returns 0 when allowed, else seconds until one is available. */
  take(key: string, now = Date.now()): number {
    const bucket = this.buckets.get(key) ?? { tokens: this.capacity, at: now };
    bucket.tokens = Math.min(this.capacity, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      this.remember(key, bucket);
      return 0;
    }
    this.remember(key, bucket);
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }

  private remember(key: string, bucket: { tokens: number; at: number }) {
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    // Forget the least recently seen keys first; a forgotten key starts with a full bucket.
    while (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
  }
}

const numberFromEnv = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};

const globalForLimits = globalThis as unknown as { claimboardLimits?: { perToken: RateLimiter; failedAuth: RateLimiter } };

/** Per token: 100 requests/s sustained, bursts of 200; failed authentications: 10/minute per address, bursts of 20. */
export function limiters() {
  globalForLimits.claimboardLimits ??= {
    perToken: new RateLimiter(numberFromEnv("RATE_LIMIT_BURST", 200), numberFromEnv("RATE_LIMIT_PER_SECOND", 100)),
    failedAuth: new RateLimiter(numberFromEnv("AUTH_FAILURE_BURST", 20), numberFromEnv("AUTH_FAILURES_PER_MINUTE", 10) / 60),
  };
  return globalForLimits.claimboardLimits;
}
