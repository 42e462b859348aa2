// Called once when a Next.js server process starts (Next's instrumentation hook).
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startWebhookSender } = await import("./lib/webhooks/loop");
  startWebhookSender();
}
