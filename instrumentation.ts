// Called once when a Next.js server process starts (Next's instrumentation hook): the
// background work every instance does, with no leader (docs/webhooks.md, docs/schedules.md).
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const [{ startWebhookSender }, { startScheduleTicks }] = await Promise.all([import("./lib/webhooks/loop"), import("./lib/schedules/loop")]);
  startWebhookSender();
  startScheduleTicks();
}
