import { CronExpressionParser } from "cron-parser";

// Reading a schedule's cron in its time zone: cron-parser does the calendar (DST included);
// here only what the contract adds — five fields exactly, an IANA zone — and the walk over
// the occurrences of a span.

/** Why the cron is refused, or null. cron-parser also takes six fields (seconds): the contract says five. */
export function cronRefusal(cron: string): string | null {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) return `must have 5 fields (minute hour day-of-month month day-of-week), not ${fields.length}`;
  try {
    CronExpressionParser.parse(cron, { tz: "UTC" }).next();
    return null;
  } catch (error) {
    return `is not a cron expression: ${(error as Error).message}`;
  }
}

export function timezoneRefusal(zone: string): string | null {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return null;
  } catch {
    return `${zone} is not an IANA time zone (e.g. Europe/Berlin, America/New_York, UTC)`;
  }
}

/** The first occurrence strictly after `after`. */
export function nextOccurrence(cron: string, timezone: string, after: Date): Date {
  return CronExpressionParser.parse(cron, { currentDate: after, tz: timezone }).next().toDate();
}

/** Occurrences in [from, until], oldest first, at most `cap` (and whether there were more). */
export function occurrencesBetween(cron: string, timezone: string, from: Date, until: Date, cap = 1000): { list: Date[]; more: boolean } {
  const expression = CronExpressionParser.parse(cron, { currentDate: new Date(from.getTime() - 1), tz: timezone });
  const list: Date[] = [];
  for (;;) {
    const next = expression.next().toDate();
    if (next > until) return { list, more: false };
    if (list.length === cap) return { list, more: true };
    list.push(next);
  }
}
