import { flag, optional, parse, required, str, type Command } from "./flags";
import { usageError } from "./errors";
import { row } from "./escape";

// Schedules from a shell, as a supervisor keeps them on /schedules (docs/schedules.md).


async function byId(positionals: string[], verb: string): Promise<string> {
  if (positionals.length !== 1) throw usageError(`schedule ${verb} takes one schedule id`);
  const { scheduleIdInput } = await import("@/lib/schedules/schemas");
  return parse(scheduleIdInput, { id: positionals[0] }).id;
}

export const scheduleCommands: Record<string, Command> = {
  "schedule create": {
    usage: "schedule create --name N --cron '0 9 * * 1-5' --queue Q --title T [--timezone Europe/Berlin] [--overlap skip|allow] [--missed skip|once]",
    options: { name: str, cron: str, queue: str, title: str, timezone: str, overlap: str, missed: str },
    async prepare(values) {
      const { createScheduleInput } = await import("@/lib/schedules/schemas");
      const input = parse(createScheduleInput, {
        name: required(values, "name"), cron: required(values, "cron"), queue: required(values, "queue"),
        task: { title: required(values, "title") }, timezone: optional(values, "timezone"),
        overlap: optional(values, "overlap"), missed: optional(values, "missed"),
      }, { task: "--title" });
      return async (db) => {
        const { createSchedule } = await import("@/lib/schedules/ops");
        const { performAsCli } = await import("./database");
        const made = await performAsCli(db, createSchedule, input, (text) => text.replace(/^(name|queue|cron|timezone):/, "--$1:"));
        return [`created schedule ${made.id} (${made.name}); next run ${made.nextAt?.toISOString()}`];
      };
    },
  },

  "schedule list": {
    usage: "schedule list",
    options: {},
    async prepare() {
      return async (db) => {
        const { listSchedules } = await import("@/lib/schedules/ops");
        const schedules = await listSchedules(db);
        if (schedules.length === 0) return ["no schedules"];
        return schedules.map((s) => row([
          s.id, s.authorityEndedAt ? `paused (${s.authorityEndedReason})` : s.paused ? "paused" : "active", s.name, `${s.cron} (${s.timezone})`, s.queue,
          `next ${s.nextAt?.toISOString() ?? "none"}`, `last ${s.lastResult?.kind ?? "none"}`,
        ], "  "));
      };
    },
  },

  "schedule pause": {
    usage: "schedule pause ID [--resume]",
    options: { resume: flag },
    positionals: true,
    async prepare(values, positionals) {
      const id = await byId(positionals, "pause");
      const paused = !values.resume;
      return async (db) => {
        const { updateSchedule } = await import("@/lib/schedules/ops");
        const { performAsCli } = await import("./database");
        const s = await performAsCli(db, updateSchedule, { id, paused });
        return [paused ? `paused schedule ${s.name}` : `resumed schedule ${s.name}; next run ${s.nextAt?.toISOString()}`];
      };
    },
  },

  "schedule delete": {
    usage: "schedule delete ID",
    options: {},
    positionals: true,
    async prepare(_values, positionals) {
      const id = await byId(positionals, "delete");
      return async (db) => {
        const { deleteSchedule } = await import("@/lib/schedules/ops");
        const { performAsCli } = await import("./database");
        await performAsCli(db, deleteSchedule, { id });
        return [`deleted schedule ${id}`];
      };
    },
  },

  "schedule adopt": {
    usage: "schedule adopt ID",
    options: {},
    positionals: true,
    async prepare(_values, positionals) {
      const id = await byId(positionals, "adopt");
      return async (db) => {
        const { adoptSchedule } = await import("@/lib/schedules/ops");
        const { performAsCli } = await import("./database");
        const s = await performAsCli(db, adoptSchedule, { id });
        return [`adopted schedule ${s.name}; next run ${s.nextAt?.toISOString() ?? "none while paused"}`];
      };
    },
  },
};
