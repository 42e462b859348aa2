import { sql } from "drizzle-orm";
import { explainMiss, notFound } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { appendEvents } from "../core/events";
import { closesCycle, idArray, lockDependencies, lockGraph, normalizeIds } from "./graph";
import { dependenciesInput } from "../core/schemas";
import { loadTask, toTasks } from "../core/task-row";
import { doneBy, MOVES, type MoveRow } from "../core/machine";
import { statusIn, transition } from "../core/transition";
import { fail, ok } from "../core/types";
import { WORKERS } from "../core/standing";

/** A task's dependencies, all told (each request adds at most MAX_DEPENDENCIES). */
export const MAX_TOTAL_DEPENDENCIES = 1000;

const adding: MoveRow = MOVES.addDependencies;

/**
 * Adds dependencies to a queued task (version + 1, a dependency_added event). A cycle is
 * refused: the check runs under one advisory lock for all graph edits, so two edits racing
 * to close a cycle from both ends are serialised and the second sees the first's edge.
 */
export const addDependencies = defineOperation({
  name: "addDependencies",
  who: WORKERS,
  input: dependenciesInput,
  async run(tx, input, { actor, clock }) {
    const expected = { taskId: input.taskId, version: input.version, actor, verb: adding.verb, from: adding.from, doneBy: doneBy(adding), ownerOnly: false };
    await lockGraph(tx);
    const task = await loadTask(tx, input.taskId);
    if (!task) return notFound(input.taskId);
    if (!adding.from.includes(task.status) || task.version !== input.version) return explainMiss(tx, clock, expected);

    const ids = normalizeIds(input.dependsOn);
    const dependencies = await lockDependencies(tx, ids);
    if (!dependencies.ok) return dependencies;
    if (await closesCycle(tx, BigInt(task.id), ids)) {
      return fail({
        code: "dependency_cycle", field: "dependsOn", task,
        message: `dependsOn: task ${task.id} cannot depend on ${ids.map((id) => `#${id}`).join(", ")}: that would close a cycle (one of them already waits for ${task.id})`,
      });
    }
    const all = normalizeIds([...task.dependsOn, ...ids.map(String)]);
    if (all.length > MAX_TOTAL_DEPENDENCIES) {
      return fail({ code: "invalid_request", field: "dependsOn", message: `dependsOn: a task may have at most ${MAX_TOTAL_DEPENDENCIES} dependencies` });
    }
    const blocked = normalizeIds([...task.blockedBy, ...dependencies.value.filter((d) => d.status !== "done").map((d) => d.id.toString())]);
    const changed = await transition(
      tx,
      input.taskId,
      sql`depends_on = ${idArray(all)}, blocked_by = ${idArray(blocked)}, version = t.version + 1, updated_at = ${clock.now()}`,
      sql`${statusIn(adding.from)} AND t.version = ${input.version}`,
    );
    if (!changed) return explainMiss(tx, clock, expected);
    const { row } = changed;
    await appendEvents(tx, clock, [{
      taskId: row.id, queue: row.queue, type: "dependency_added", actorId: actor.id,
      payload: {
        version: row.version, status: row.status, added: ids.map(String),
        dependsOn: row.dependsOn.map(String), blockedBy: row.blockedBy.map(String),
      },
    }]);
    return ok((await toTasks(tx, [row], actor))[0]!);
  },
});
