// One act, one name. The engine's word for keeping a lease alive is **renew** (docs/design.md#names:
// "renew (heartbeat)"); the contract fixed other names at two edges before that was settled,
// and they stay as aliases there, never as new concepts:
// - HTTP: `POST /api/v1/tasks/{id}/heartbeat`, and the event it writes is `heartbeat`;
// - MCP: the tool `report_progress` (renews and reports progress in one call).
// Pages and docs say "renew"; the UI's button reads RENEW.label. Pure: safe in the browser.

export const RENEW = {
  /** The engine operation and the UI's action. */
  name: "renew",
  label: "Renew lease",
  /** The HTTP path's verb (docs/contract.md#endpoints). */
  http: "heartbeat",
  /** The event type a renewal writes. */
  event: "heartbeat",
  /** The MCP tool (docs/contract.md#mcp-tools). */
  mcpTool: "report_progress",
} as const;
