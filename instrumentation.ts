// Called once when a Next.js server process starts (Next's instrumentation hook): the
// background work every instance does, with no leader (docs/webhooks.md, docs/schedules.md, docs/questions.md).
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const [{ startWebhookSender }, { startScheduleTicks }, { startQuestionDeadlines }] = await Promise.all([
    import("./lib/webhooks/loop"), import("./lib/schedules/loop"), import("./lib/tasks/questions/loop"),
  ]);
  startWebhookSender();
  startScheduleTicks();
  startQuestionDeadlines();
}
