import type { Inbox, InboxTask, TrippedQueue } from "@/app/inbox/data";
import type { QueueSettingsRow } from "@/app/queues/data";
import type { AgentTokenRow } from "@/lib/auth/token-list";
import type { Wire } from "@/components/task/wire";

// The supervisors' data as the browser holds it (Dates as ISO strings).
export type InboxView = Wire<Inbox>;
export type InboxTaskView = Wire<InboxTask>;
export type TrippedQueueView = Wire<TrippedQueue>;
export type QueueSettingsView = Wire<QueueSettingsRow>;
export type AgentTokenView = Wire<AgentTokenRow>;
