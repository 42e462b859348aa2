import type { Inbox, InboxTask, TrippedQueue, QueueSummary } from "@/lib/tasks";
import type { AgentTokenRow } from "@/lib/auth/token-list";
import type { Wire } from "@/components/task/wire";

// The supervisors' data as the browser holds it (Dates as ISO strings).
export type InboxView = Wire<Inbox>;
export type InboxTaskView = Wire<InboxTask>;
export type TrippedQueueView = Wire<TrippedQueue>;
export type QueueSettingsView = Wire<QueueSummary>;
export type AgentTokenView = Wire<AgentTokenRow>;
