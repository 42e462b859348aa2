import { repeatInBackground } from "@/lib/background";
import { databaseClock, expireDueQuestions, releaseOverdueReservationsPass } from "@/lib/tasks";

// Every server process expires the questions past their deadline (instrumentation.ts starts
// this): no leader, and an idle pass is one probe of the partial index task_questions_open.
// The reads of a question, an answer and the inbox expire lazily too, so a stopped loop only
// delays the escalation, never loses it. It lives beside the other loops (lib/webhooks/loop.ts),
// outside lib/tasks: importing the engine must not load the database pool.
export function startQuestionDeadlines(): void {
  // A parked task's reservations end at the hold (lib/tasks/reservations/release.ts), in the same pass.
  repeatInBackground({
    name: "questions", intervalMs: Number(process.env.QUESTIONS_POLL_MS ?? 5000), poolSize: 1,
    pass: async (db) => (await expireDueQuestions(db, databaseClock)) + (await releaseOverdueReservationsPass(db, databaseClock)),
  });
}
