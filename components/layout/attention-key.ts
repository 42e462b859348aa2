/** The attention query's key (components/layout/attention.tsx): every event on the stream marks it stale (components/realtime/invalidate.ts). */
export const attentionKey = ["attention"] as const;
