import { CliError, usageError } from "./errors";
import { row } from "./escape";
import { list, optional, parse, required, str, type Command } from "./flags";

// Webhooks from a shell, as a supervisor keeps them on /webhooks (docs/webhooks.md). The CLI's
// operator registers them; the secret is sealed under the server's secret, so the CLI reads
// the same one `npm start` uses (NEXTAUTH_SECRET, else the data folder's).


export const webhookCommands: Record<string, Command> = {
  "webhook create": {
    usage: "webhook create --url URL --events completed,escalated|* [--queues Q1,Q2] [--description D]",
    options: { url: str, events: str, queues: str, description: str },
    async prepare(values) {
      const { createWebhookInput } = await import("@/lib/webhooks/schemas");
      const input = parse(createWebhookInput, {
        url: required(values, "url"),
        events: list(values, "events") ?? required(values, "events"),
        queues: list(values, "queues"),
        description: optional(values, "description"),
      });
      return async (db) => {
        const { serverSecret } = await import("../server-secret");
        process.env.NEXTAUTH_SECRET = await serverSecret();
        const { createWebhook } = await import("@/lib/webhooks/ops");
        const { performAsCli } = await import("./database");
        const made = await performAsCli(db, createWebhook, input, (text) => text.replace(/^(url|events|queues)\b/, "--$1"));
        // The secret goes last and alone, so `… | tail -1` captures it.
        return [`created webhook ${made.webhook.id} for ${made.webhook.url}; its signing secret is shown only this once:`, made.secret];
      };
    },
  },

  "webhook list": {
    usage: "webhook list",
    options: {},
    async prepare() {
      return async (db) => {
        const { listWebhooks } = await import("@/lib/webhooks/ops");
        const hooks = await listWebhooks(db);
        if (hooks.length === 0) return ["no webhooks"];
        return hooks.map((h) => row([
          h.id, h.disabledAt ? `disabled (${h.disabledReason})` : h.authorityEndedAt ? `paused (${h.authorityEndedReason})` : "active", h.url,
          h.events.join(","), h.queues ? h.queues.join(",") : "every queue",
        ], "  "));
      };
    },
  },

  "webhook delete": {
    usage: "webhook delete ID",
    options: {},
    positionals: true,
    async prepare(_values, positionals) {
      if (positionals.length !== 1) throw usageError("webhook delete takes one webhook id");
      const { webhookIdInput } = await import("@/lib/webhooks/schemas");
      const { id } = parse(webhookIdInput, { id: positionals[0] });
      return async (db) => {
        const { deleteWebhook } = await import("@/lib/webhooks/ops");
        const { performAsCli } = await import("./database");
        await performAsCli(db, deleteWebhook, { id });
        return [`deleted webhook ${id}`];
      };
    },
  },

  "webhook adopt": {
    usage: "webhook adopt ID",
    options: {},
    positionals: true,
    async prepare(_values, positionals) {
      if (positionals.length !== 1) throw usageError("webhook adopt takes one webhook id");
      const { webhookIdInput } = await import("@/lib/webhooks/schemas");
      const { id } = parse(webhookIdInput, { id: positionals[0] });
      return async (db) => {
        const { adoptWebhook } = await import("@/lib/webhooks/ops");
        const { performAsCli } = await import("./database");
        const hook = await performAsCli(db, adoptWebhook, { id });
        return [`adopted webhook ${hook.id} for ${hook.url}`];
      };
    },
  },

  "webhook deliveries": {
    usage: "webhook deliveries ID",
    options: {},
    positionals: true,
    async prepare(_values, positionals) {
      if (positionals.length !== 1) throw usageError("webhook deliveries takes one webhook id");
      const { webhookIdInput } = await import("@/lib/webhooks/schemas");
      const { id } = parse(webhookIdInput, { id: positionals[0] });
      return async (db) => {
        const { listDeliveries } = await import("@/lib/webhooks/ops");
        const page = await listDeliveries(db, { id, limit: 50 });
        if (!page) throw new CliError(`no webhook ${id}`);
        if (page.deliveries.length === 0) return ["no deliveries yet"];
        return page.deliveries.map((d) => row([
          d.eventAt.toISOString(), d.status, d.type, d.taskId ? `task ${d.taskId}` : d.queue,
          `${d.attempts} tries`, d.lastError ?? (d.lastStatus ? `HTTP ${d.lastStatus}` : ""),
        ], "  "));
      };
    },
  },
};
