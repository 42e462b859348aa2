// Called once when a Next.js server process starts (Next's instrumentation hook): the
// background work every instance does, with no leader (docs/webhooks.md, docs/schedules.md, docs/questions.md,
// docs/realtime.md "Lapses, announced").
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const [{ startWebhookSender }, { startScheduleTicks }, { startQuestionDeadlines }, { startLapseClock }] = await Promise.all([
    import("./lib/webhooks/loop"), import("./lib/schedules/loop"), import("./lib/question-deadlines"), import("./lib/realtime/lapse-start"),
  ]);
  startWebhookSender();
  startScheduleTicks();
  startQuestionDeadlines();
  startLapseClock();
}
