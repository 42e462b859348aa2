/**
 * Places for held requests: the requests a server keeps open on purpose (an event stream, a
 * question's long-poll, a waiting claim). Each costs no database work while it waits, but
 * each holds a socket, timers and a slot in the hub's wake-ups, so one caller opening
 * thousands would crowd out everyone else on the instance. Every kind is counted per caller
 * (a token, or a person's session) and per instance (this process); beyond either cap the
 * request is refused with 429 `rate_limited` naming the cap, before it holds anything.
 *
 * Settings (environment, read once at start; docs/realtime.md "Held requests"):
 * - streams: STREAMS_PER_PERSON (20: one per tab), STREAMS_PER_TOKEN (1,000: a fleet of
 *   watchers on one token, as the fan-out bench runs), STREAMS_PER_CALLER sets both;
 *   STREAMS_PER_INSTANCE (10,000).
 * - claim waits: CLAIM_WAITS_PER_TOKEN (64), CLAIM_WAITS_PER_INSTANCE (5,000).
 * - question waits: QUESTION_WAITS_PER_TOKEN (64; a person's session too),
 *   QUESTION_WAITS_PER_INSTANCE (5,000).
 */
const setting = (name: string) => Math.floor(Number(process.env[name])) || 0;
const atLeastOne = (...values: number[]) => Math.max(1, values.find((v) => v > 0) ?? 1);

export type HeldKind = "stream" | "claim wait" | "question wait";

interface Caps {
  perToken: number;
  perPerson: number;
  perInstance: number;
}

const streamsBoth = setting("STREAMS_PER_CALLER");
export const HELD_CAPS: Record<HeldKind, Caps> = {
  stream: {
    perToken: atLeastOne(streamsBoth, setting("STREAMS_PER_TOKEN"), 1_000),
    perPerson: atLeastOne(streamsBoth, setting("STREAMS_PER_PERSON"), 20),
    perInstance: atLeastOne(setting("STREAMS_PER_INSTANCE"), 10_000),
  },
  "claim wait": {
    perToken: atLeastOne(setting("CLAIM_WAITS_PER_TOKEN"), 64),
    perPerson: atLeastOne(setting("CLAIM_WAITS_PER_TOKEN"), 64),
    perInstance: atLeastOne(setting("CLAIM_WAITS_PER_INSTANCE"), 5_000),
  },
  "question wait": {
    perToken: atLeastOne(setting("QUESTION_WAITS_PER_TOKEN"), 64),
    perPerson: atLeastOne(setting("QUESTION_WAITS_PER_TOKEN"), 64),
    perInstance: atLeastOne(setting("QUESTION_WAITS_PER_INSTANCE"), 5_000),
  },
};

/** Seconds a refused caller is told to wait: its places free only as its own held requests end. */
export const HELD_RETRY_SECONDS = 5;

// Shared by every copy of this module in the server's bundles (each route is its own bundle).
const globalForHeld = globalThis as unknown as { claimboardHeldPlaces?: Map<string, number> };
const open = (globalForHeld.claimboardHeldPlaces ??= new Map());

const bump = (key: string, by: number) => {
  const next = (open.get(key) ?? 0) + by;
  if (next > 0) open.set(key, next);
  else open.delete(key);
};

/** How many held requests of `kind` are open: for `caller`, or on this instance. */
export function heldCount(kind: HeldKind, caller?: string): number {
  return open.get(caller === undefined ? `${kind}\0*` : `${kind}\0${caller}`) ?? 0;
}

export type HeldPlace = { release: () => void } | { refused: string };

/**
 * A place for one more held request of `kind` by `caller` (a token id, or `session:<actor>`
 * for a person), with its release (idempotent); or the refusal's message naming the cap.
 */
export function takeHeldPlace(kind: HeldKind, caller: string): HeldPlace {
  const caps = HELD_CAPS[kind];
  const person = caller.startsWith("session:");
  const perCaller = person ? caps.perPerson : caps.perToken;
  const plural = `${kind}s`;
  if (heldCount(kind, caller) >= perCaller) {
    return { refused: `At most ${perCaller} ${plural} may be open per ${person ? "person" : "token"} (on this server); end one first` };
  }
  if (heldCount(kind) >= caps.perInstance) {
    return { refused: `At most ${caps.perInstance} ${plural} may be open on this server; retry shortly or on another instance` };
  }
  const keys = [`${kind}\0${caller}`, `${kind}\0*`];
  keys.forEach((key) => bump(key, 1));
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      keys.forEach((key) => bump(key, -1));
    },
  };
}
