/**
 * Open event streams per caller, in this process. Each holds a subscriber, its replay and a
 * connection; a caller opening thousands would crowd out everyone else. A person's browser
 * opens one per tab (STREAMS_PER_PERSON, default 20); a token may serve a fleet of
 * watchers (STREAMS_PER_TOKEN, default 1,000: the fan-out bench's 1,000 subscribers share
 * one). STREAMS_PER_CALLER, when set, is the cap for both.
 */
const setting = (name: string) => Math.floor(Number(process.env[name])) || 0;
const both = setting("STREAMS_PER_CALLER");
export const STREAMS_PER_TOKEN = Math.max(1, both || setting("STREAMS_PER_TOKEN") || 1_000);
export const STREAMS_PER_PERSON = Math.max(1, both || setting("STREAMS_PER_PERSON") || 20);

// Shared by every copy of this module in the server's bundles.
const globalForStreams = globalThis as unknown as { claimboardOpenStreams?: Map<string, number> };
const open = (globalForStreams.claimboardOpenStreams ??= new Map());

/** A place for one more stream of `caller`, with its release (call it once), or null at the cap. */
export function takeStreamPlace(caller: string, cap: number): (() => void) | null {
  const count = open.get(caller) ?? 0;
  if (count >= cap) return null;
  open.set(caller, count + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (open.get(caller) ?? 1) - 1;
    if (left > 0) open.set(caller, left);
    else open.delete(caller);
  };
}
