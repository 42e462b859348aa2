import { z } from "zod";
import { sql, type SQL } from "drizzle-orm";

/** The windows a supervisor may look back over, each with the width of one chart bar. */
export const WINDOWS = {
  "1h": { seconds: 3_600, bucketSeconds: 120, label: "the last hour" },
  "6h": { seconds: 6 * 3_600, bucketSeconds: 600, label: "the last 6 hours" },
  "24h": { seconds: 86_400, bucketSeconds: 1_800, label: "the last 24 hours" },
  "7d": { seconds: 7 * 86_400, bucketSeconds: 4 * 3_600, label: "the last 7 days" },
  "30d": { seconds: 30 * 86_400, bucketSeconds: 86_400, label: "the last 30 days" },
} as const;

export type WindowName = keyof typeof WINDOWS;
export const DEFAULT_WINDOW: WindowName = "24h";
export const windowName = z.enum(Object.keys(WINDOWS) as [WindowName, ...WindowName[]], "must be one of 1h, 6h, 24h, 7d, 30d");

export interface Span {
  from: Date;
  to: Date;
  bucketSeconds: number;
}

/** The window ending at `to` (the database clock's now, or a test's fixed instant). */
export function spanOf(name: WindowName, to: Date): Span {
  const { seconds, bucketSeconds } = WINDOWS[name];
  return { from: new Date(to.getTime() - seconds * 1000), to, bucketSeconds };
}

/** A bound instant for SQL (postgres.js, through Drizzle, does not bind Date objects). */
export const at = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/** `(VALUES (a, b), …) r(a, b)`: the raw ranges of a plan, each one range of task_events_time (BRIN on created_at). */
export function rangesOf(ranges: [Date, Date][]): SQL {
  const kept = ranges.filter(([a, b]) => a < b);
  const rows = kept.length > 0 ? kept : [[new Date(0), new Date(0)] as [Date, Date]];
  return sql`(VALUES ${sql.join(rows.map(([a, b]) => sql`(${at(a)}, ${at(b)})`), sql`, `)}) r(a, b)`;
}
