import { z } from "zod";

// A reservation is a field of the task (its `reserves`), so its shape lives in core: the task
// row, its schemas and its events use it; lib/tasks/reservations/ holds the acts over it.

/** docs/contract.md#reservations: at most this many a task, each resource at most this long. */
export const MAX_RESERVATIONS = 20;
export const MAX_RESOURCE = 500;

/**
 * A resource is a relative `/`-separated path; a last segment `**` covers the subtree
 * (`src/api/**` covers `src/api` and everything under it). No `..` or `.` segments, no
 * empty ones (so no leading, trailing or doubled `/`): one spelling per resource, or two
 * names for one file would never conflict.
 */
export const resource = z
  .string()
  .min(1, "must not be empty")
  .max(MAX_RESOURCE, `must be at most ${MAX_RESOURCE} characters`)
  .superRefine((path, ctx) => {
    const segments = path.split("/");
    const problem =
      segments.some((s) => s === "..") ? "must not contain a '..' segment"
      : segments.some((s) => s === ".") ? "must not contain a '.' segment"
      : segments.some((s) => s === "") ? "must be a relative path without empty segments (no leading, trailing or doubled '/')"
      : segments.slice(0, -1).includes("**") || (segments.length === 1 && segments[0] === "**") ? "may use '**' only as the last segment, after a path ('src/**')"
      : /[\u0000-\u001f\u007f]/.test(path) ? "must not contain control characters"
      : null;
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

export const reservation = z.strictObject({ resource, mode: z.enum(["exclusive", "shared"]) });
export type Reservation = z.infer<typeof reservation>;

export const reserves = z.array(reservation).max(MAX_RESERVATIONS, `must list at most ${MAX_RESERVATIONS} reservations`);

/** The same test as the database's reservation_covers (migration 0027), for the page and tests. */
export function covers(a: string, b: string): boolean {
  if (a === b) return true;
  if (!a.endsWith("/**")) return false;
  const prefix = a.slice(0, -3);
  return b === prefix || b.startsWith(`${prefix}/`);
}

/** docs/contract.md#reservations: two reservations conflict when either is exclusive and one covers the other. */
export const conflict = (x: Reservation, y: Reservation) =>
  (x.mode === "exclusive" || y.mode === "exclusive") && (covers(x.resource, y.resource) || covers(y.resource, x.resource));
