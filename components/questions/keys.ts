import { taskKeys } from "@/components/task/api";

// Under the supervisors' keys every event refetches the inbox's list (components/realtime/invalidate.ts);
// a task's questions sit under its detail key, refetched on each of its events.
export const questionKeys = {
  open: ["supervisor", "questions"] as const,
  task: (id: string) => [...taskKeys.detail(id), "questions"] as const,
};
