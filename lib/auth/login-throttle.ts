import { clientAddress } from "@/lib/http/client-address";

/**
 * Failed sign-ins, counted per account (the email as typed, lowercased — known or not, so
 * the throttle says nothing about which emails exist) and per client address. Once a key
 * has `limit` failures inside the window, every attempt on it is refused — the right
 * password too, or a guesser would learn when it hit — until the oldest failure ages out.
 * Kept in this process's memory: each server instance counts its own (docs/security.md).
 */
export class FailureWindow {
  private failures = new Map<string, number[]>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly maxKeys = 100_000,
  ) {}

  /** Failures of `key` still inside the window. */
  private recent(key: string, now: number): number[] {
    const kept = (this.failures.get(key) ?? []).filter((at) => now - at < this.windowMs);
    if (kept.length) this.failures.set(key, kept);
    else this.failures.delete(key);
    return kept;
  }

  blocked(key: string, now = Date.now()): boolean {
    return this.recent(key, now).length >= this.limit;
  }

  fail(key: string, now = Date.now()): void {
    const kept = this.recent(key, now);
    this.failures.delete(key); // re-insert: the map's order is least recently failed first
    this.failures.set(key, [...kept, now].slice(-this.limit));
    while (this.failures.size > this.maxKeys) this.failures.delete(this.failures.keys().next().value!);
  }
}

const fromEnv = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};

const globalForThrottle = globalThis as unknown as { claimboardLogin?: { account: FailureWindow; address: FailureWindow } };

/** Defaults: 5 failures per account and 50 per address in 15 minutes (LOGIN_* variables override). */
export function loginThrottle() {
  const windowMs = fromEnv("LOGIN_FAILURE_WINDOW_SECONDS", 15 * 60) * 1000;
  globalForThrottle.claimboardLogin ??= {
    account: new FailureWindow(fromEnv("LOGIN_FAILURES_PER_ACCOUNT", 5), windowMs),
    address: new FailureWindow(fromEnv("LOGIN_FAILURES_PER_ADDRESS", 50), windowMs),
  };
  return globalForThrottle.claimboardLogin;
}

/** The address a sign-in counts against: the API's rule (lib/http/client-address.ts). */
export function loginAddress(headers: Record<string, unknown> | undefined): string {
  return clientAddress((name) => headers?.[name]);
}

/** Thrown from authorize: next-auth hands the message to the sign-in form as the error code. */
export const TOO_MANY_ATTEMPTS = "TooManyAttempts";
