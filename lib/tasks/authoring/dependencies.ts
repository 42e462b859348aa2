import { sql } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { explainMiss, notFound } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { appendEvents } from "../core/events";
import { closesCycle, idArray, lockDependencies, lockGraph, normalizeIds } from "./graph";
import { mayEdit } from "./edit";
import { dependenciesInput, removeDependencyInput } from "../core/schemas";
import { loadTask, toTasks } from "../core/task-row";
import { doneBy, MOVES, type MoveRow } from "../core/machine";
import { statusIn, transition } from "../core/transition";
import { editsAnyTask, type Standing } from "../core/standing";
import { fail, ok, type ActorRef, type Result, type Task } from "../core/types";

/** A task's dependencies, all told (each request adds at most MAX_DEPENDENCIES). */
export const MAX_TOTAL_DEPENDENCIES = 1000;

const adding: MoveRow = MOVES.addDependencies;
const removing: MoveRow = MOVES.removeDependency;

/**
 * A dependency blocks a task, so changing them is an edit: whoever created the task, its last
 * holder, a supervisor or the operator (editTask's rule, `mayEdit`). In-process code that is
 * no surface (seeds, tests) passes no standing and is not gated, as everywhere.
 */
async function refusedEditor(tx: Tx, task: Task, actor: ActorRef, standing: Standing | undefined, verb: string): Promise<Result<never> | null> {
  if (standing === undefined || editsAnyTask(standing) || (await mayEdit(tx, task.id, actor))) return null;
  return fail({ code: "forbidden", message: `Only whoever created task ${task.id}, its last holder or a supervisor may ${verb} it`, task });
}

/**
 * Adds dependencies to a queued task (version + 1, a dependency_added event). A cycle is
 * refused: the check runs under one advisory lock for all graph edits, so two edits racing
 * to close a cycle from both ends are serialised and the second sees the first's edge.
 */
export const addDependencies = defineOperation({
  name: "addDependencies",
  makes: ["addDependencies"],
  input: dependenciesInput,
  async run(tx, input, { actor, clock, standing }) {
    const expected = { taskId: input.taskId, version: input.version, actor, verb: adding.verb, from: adding.from, doneBy: doneBy(adding), ownerOnly: false };
    await lockGraph(tx);
    const task = await loadTask(tx, input.taskId);
    if (!task) return notFound(input.taskId);
    const refused = await refusedEditor(tx, task, actor, standing, adding.verb);
    if (refused) return refused;
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

/**
 * Takes one dependency away from a queued task (version + 1, a dependency_removed event):
 * no longer waited for, so a task whose last unfinished dependency it was is claimable at
 * once. Under the graph lock, like every graph edit. Not a dependency of the task: not_found.
 */
export const removeDependency = defineOperation({
  name: "removeDependency",
  makes: ["removeDependency"],
  input: removeDependencyInput,
  async run(tx, input, { actor, clock, standing }) {
    const expected = { taskId: input.taskId, version: input.version, actor, verb: removing.verb, from: removing.from, doneBy: doneBy(removing), ownerOnly: false };
    await lockGraph(tx);
    const task = await loadTask(tx, input.taskId);
    if (!task) return notFound(input.taskId);
    const refused = await refusedEditor(tx, task, actor, standing, removing.verb);
    if (refused) return refused;
    if (!removing.from.includes(task.status)) return explainMiss(tx, clock, expected);
    // Not explainMiss's "already done" retry: a stale version may name another dependency than the removal that moved it.
    if (task.version !== input.version) {
      return fail({ code: "version_conflict", task, message: `Task ${task.id} is at version ${task.version}, not ${input.version}: it changed since you read it` });
    }
    const dependency = BigInt(input.dependency).toString();
    if (!task.dependsOn.includes(dependency)) {
      return fail({ code: "not_found", field: "dependency", task, message: `Task ${task.id} does not depend on #${dependency}` });
    }
    const all = task.dependsOn.filter((id) => id !== dependency);
    const blocked = task.blockedBy.filter((id) => id !== dependency);
    const changed = await transition(
      tx,
      input.taskId,
      sql`depends_on = ${idArray(all.map(BigInt))}, blocked_by = ${idArray(blocked.map(BigInt))}, version = t.version + 1, updated_at = ${clock.now()}`,
      sql`${statusIn(removing.from)} AND t.version = ${input.version}`,
    );
    if (!changed) return explainMiss(tx, clock, expected);
    const { row } = changed;
    await appendEvents(tx, clock, [{
      taskId: row.id, queue: row.queue, type: "dependency_removed", actorId: actor.id,
      payload: { version: row.version, status: row.status, removed: dependency, dependsOn: row.dependsOn.map(String), blockedBy: row.blockedBy.map(String) },
    }]);
    return ok((await toTasks(tx, [row], actor))[0]!);
  },
});
