// The reference agent's --ask "…" (docs/questions.md): before working a started task it asks a
// person, its lease parked meanwhile (no heartbeats), and long-polls for the answer — printed —
// then works on with the fresh lease the answer gave. A question that expires sent the task to
// the supervisors' inbox: the task is no longer ours.
import type { ClaimboardClient, Task } from "../lib/client";
import { LIMITS } from "../lib/limits";

export async function askFirst(client: ClaimboardClient, task: Task, question: string, log: (line: string) => void, stop: AbortSignal): Promise<Task | null> {
  const asked = await client.askQuestion(task, { question });
  log(`asked on ${task.id} (question ${asked.question.id}, until ${asked.question.deadline}): ${question}`);
  for (;;) {
    const read = await client.getQuestion(task.id, asked.question.id, { wait: LIMITS.questionWaitSeconds });
    if (read.answer) {
      log(`answer on ${task.id} from ${read.answer.by.name}: ${read.answer.text}${read.answer.choice !== null ? ` (choice: ${read.answer.choice})` : ""}`);
      const resumed = await client.getTask(task.id);
      return resumed.status === "started" && resumed.owner?.id === task.owner?.id ? resumed : null;
    }
    if (read.expiredAt) {
      log(`question ${read.id} on ${task.id} went unanswered past its deadline: the task is in the supervisors' inbox`);
      return null;
    }
    if (stop.aborted) return null; // parked: the question stays; whoever answers resumes the lease, which then lapses as usual
  }
}
