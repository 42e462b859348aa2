import { sql } from "drizzle-orm";
import { explainMiss } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { appendEvents } from "../core/events";
import { releaseInput } from "../core/schemas";
import { toTasks } from "../core/task-row";
import { endAttempt, ownerTransition, supervisorGuard, transition } from "../core/transition";
import { ok } from "../core/types";
import { handoffNote, instanceOf, setHandoff } from "../core/attempt";
import { effectsLeftUnknown } from "../effects/ledger";

const owned = ownerTransition("release");
const forced = supervisorGuard("forceRelease");

/**
 * The owner gives the task back: queued, owner cleared. If this attempt recorded a side
 * effect, the task becomes needs_check so the next claimant confirms before repeating it.
 * A hand-off note, when given, becomes the task's `handoff` for the next claimant.
 */
export const release = defineOperation({
  name: "release",
  makes: ["release"],
  input: releaseInput,
  async run(tx, input, { actor, clock, instance }) {
    const note = input.handoff ? handoffNote(input.handoff, actor) : null;
    const changed = await transition(
      tx,
      input.taskId,
      sql`${endAttempt(sql`'queued'`, clock.now())} ${setHandoff(note, clock.now())}`,
      owned.guard(actor, input.version, clock.now()),
    );
    if (!changed) return explainMiss(tx, clock, owned.expected(input, actor));
    const { row, previous } = changed;
    await appendEvents(tx, clock, [{
      taskId: row.id, queue: row.queue, type: "released", actorId: actor.id,
      payload: { version: row.version, status: row.status, needsCheck: row.needsCheck, ...(note ? { handoff: note } : {}), ...instanceOf(instance) },
    }, ...(previous.sideEffectRecorded ? await effectsLeftUnknown(tx, [row]) : [])]);
    return ok((await toTasks(tx, [row], actor))[0]!);
  },
});

/** Supervisor: take a held task away from whoever holds it. */
export const forceRelease = defineOperation({
  name: "forceRelease",
  makes: ["forceRelease"],
  input: releaseInput,
  async run(tx, input, { actor, clock }) {
    const note = input.handoff ? handoffNote(input.handoff, actor) : null;
    const changed = await transition(
      tx,
      input.taskId,
      sql`${endAttempt(sql`'queued'`, clock.now())} ${setHandoff(note, clock.now())}`,
      forced.guard(input.version),
    );
    if (!changed) return explainMiss(tx, clock, forced.expected(input, actor));
    const { row, previous } = changed;
    await appendEvents(tx, clock, [{
      taskId: row.id, queue: row.queue, type: "released", actorId: actor.id,
      payload: { version: row.version, status: row.status, needsCheck: row.needsCheck, force: true, previousOwnerId: previous.ownerId, ...(note ? { handoff: note } : {}) },
    }, ...(previous.sideEffectRecorded ? await effectsLeftUnknown(tx, [row]) : [])]);
    return ok((await toTasks(tx, [row], actor))[0]!);
  },
});
