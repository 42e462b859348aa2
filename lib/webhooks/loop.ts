import { connectDatabase, type Db } from "@/db/client";
import { sendDueDeliveries } from "./sender";

// Every server process sends webhooks (instrumentation.ts starts this): no leader, no extra
// service. A quiet outbox costs one indexed probe per interval (webhook_deliveries_due is
// partial: only pending rows); a busy one is drained back to back. Its own small pool (not
// db/index.ts's, which is "server-only" and so not importable from the instrumentation hook).

const INTERVAL_MS = Number(process.env.WEBHOOKS_POLL_MS ?? 2000);
const started = globalThis as unknown as { claimboardWebhookSender?: boolean };

export function startWebhookSender(): void {
  if (started.claimboardWebhookSender || !process.env.DATABASE_URL) return;
  started.claimboardWebhookSender = true;
  let db: Db | null = null;
  const tick = async () => {
    try {
      db ??= connectDatabase(process.env.DATABASE_URL!, { max: 2, applicationName: "claimboard-webhooks" }).db;
      while ((await sendDueDeliveries(db)) > 0);
    } catch (error) {
      console.error(`webhooks: the sender's pass failed (${(error as Error)?.message ?? error}); trying again in ${INTERVAL_MS} ms`);
    }
    setTimeout(tick, INTERVAL_MS).unref();
  };
  setTimeout(tick, INTERVAL_MS).unref();
}
