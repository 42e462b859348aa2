import { repeatInBackground } from "@/lib/background";
import { sendDueDeliveries } from "./sender";

// Every server process sends webhooks (instrumentation.ts starts this). A quiet outbox costs one
// indexed probe per interval (webhook_deliveries_due is partial: only pending rows).
export function startWebhookSender(): void {
  repeatInBackground({ name: "webhooks", intervalMs: Number(process.env.WEBHOOKS_POLL_MS ?? 2000), poolSize: 2, pass: (db) => sendDueDeliveries(db) });
}
