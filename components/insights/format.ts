/** A duration for people: "850 ms", "12 s", "4.5 min", "2.1 h". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 120) return `${s < 10 ? Math.round(s * 10) / 10 : Math.round(s)} s`;
  const min = s / 60;
  if (min < 120) return `${min < 10 ? Math.round(min * 10) / 10 : Math.round(min)} min`;
  return `${Math.round((min / 60) * 10) / 10} h`;
}

/** A bucket edge as an axis label: "250ms", "5s", "2m", "1h". */
export function formatEdge(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${ms / 1000}s`;
  if (ms < 3_600_000) return `${ms / 60_000}m`;
  return `${ms / 3_600_000}h`;
}

/** Seconds before the end of the window, as an axis label: "−6 h", "−30 min", "now". */
export function formatAgo(seconds: number): string {
  if (seconds <= 0) return "now";
  if (seconds < 3600) return `−${Math.round(seconds / 60)} min`;
  if (seconds < 2 * 86_400) return `−${Math.round(seconds / 3600)} h`;
  return `−${Math.round(seconds / 86_400)} d`;
}
