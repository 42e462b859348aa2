import { z } from "zod";
import { LEASE_REASONS, LEASE_STATES } from "@/lib/tasks/model";
import { actorRef, unreadObject } from "./wire";

// GET /tasks/{id}/lease's answer (docs/leases.md): why the task is held, or not. Pure, as wire.ts.

export const leaseObject = z
  .object({
    state: z.enum(LEASE_STATES).meta({ description: "free (nobody holds it), held (a valid lease), lapsed (the lease ran out and nobody claimed it yet), parked (awaiting_input: waiting for an answer or a budget)" }),
    holder: actorRef.nullable().meta({ description: "Who holds it (held, parked) or held it (lapsed); null when free" }),
    attempt: z.number().int(),
    leaseUntil: z.iso.datetime().nullable(),
    renewals: z.number().int().meta({ description: "Renewals of the current (or last) attempt" }),
    renewalsWithoutProgress: z.number().int().meta({ description: "Renewals in a row without progress, where the queue sets maxRenewalsWithoutProgress (0 otherwise)" }),
    maxRenewalsWithoutProgress: z.number().int().meta({ description: "The queue's limit (0: off): the renewal after it is refused no_progress" }),
    lastProgressAt: z.iso.datetime().nullable().meta({ description: "The attempt's last progress: a changed `progress`, a checkpoint, an effect or a question" }),
    question: z.object({ id: z.string(), text: z.string() }).nullable().meta({ description: "The open question a parked task waits for" }),
    unread: z.array(unreadObject).meta({ description: "The holder's unacknowledged comments, oldest first" }),
    reasons: z.array(z.enum(LEASE_REASONS)),
  })
  .meta({ id: "Lease" });
