// How often a holder renews its lease, once: at a third of the lease. Every renewer follows
// it — the reference agent, the MCP stdio server, the browser that keeps a present person's
// leases (lib/tasks/claiming/held.ts renews each due lease once a third has passed) — and insights'
// recommended lease assumes it (lib/insights/recommend.ts). Pure: safe in the browser.

/** The share of a lease after which its holder renews it. */
export const RENEW_FRACTION = 1 / 3;

/** Milliseconds until a holder renews, given what is left of its lease. */
export const renewAfterMs = (leaseLeftMs: number) => leaseLeftMs * RENEW_FRACTION;

/** In words, for tool descriptions and pages. */
export const RENEW_CADENCE_TEXT = "a third of the lease";

/**
 * How long before a lease lapses its holder is told (the attention count `lapsing`, the
 * notification with its one-click renewal): one minute, docs/contract.md.
 */
export const LAPSING_WARNING_SECONDS = 60;
