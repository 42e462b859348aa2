import { sql, type SQL } from "drizzle-orm";

/**
 * Where "now" comes from. The database clock is the only clock in production, so lease
 * maths never depends on an app server's time; tests inject a fixed time instead of sleeping.
 */
export interface Clock {
  /** An SQL expression of type timestamptz for the current instant. */
  now(): SQL;
}

export const databaseClock: Clock = {
  now: () => sql`now()`,
};

/** A clock a test moves by hand. */
export class ManualClock implements Clock {
  constructor(private current: Date = new Date("2026-01-01T00:00:00.000Z")) {}

  now(): SQL {
    return sql`${this.current.toISOString()}::timestamptz`;
  }

  get time(): Date {
    return new Date(this.current);
  }

  set(time: Date): void {
    this.current = new Date(time);
  }

  advance(seconds: number): void {
    this.current = new Date(this.current.getTime() + seconds * 1000);
  }
}
