import { usageError } from "./errors";
import { row } from "./escape";
import type { Command } from "./flags";

// What is reserved now (docs/reservations.md): a line per held reservation.
export const reservationCommands: Record<string, Command> = {
  "reservation list": {
    usage: "reservation list   (every reservation held now: resource, mode, task, owner, lease end)",
    options: {},
    positionals: true,
    async prepare(_values, positionals) {
      if (positionals.length > 0) throw usageError("reservation list takes no arguments");
      return async (db) => {
        const { listReservations } = await import("@/lib/tasks");
        const { performAsCli } = await import("./database");
        const held = await performAsCli(db, listReservations, {});
        if (held.length === 0) return ["nothing is reserved"];
        return held.map((r) => row([r.resource, r.mode, `#${r.taskId}`, r.owner.name, r.leaseUntil?.toISOString() ?? "awaiting an answer", r.title]));
      };
    },
  },
};
