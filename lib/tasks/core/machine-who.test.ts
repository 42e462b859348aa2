import { describe, expect, test } from "vitest";
import {
  acknowledge, addComment, addDependencies, cancel, claim, complete, createTask, editTask, failTask, forceRelease, recordSideEffect, removeDependency,
  raiseBudget, release, renew, requeue, resolve, review, start, type Operation,
} from "@/lib/tasks";
import type { z } from "zod";
import { MOVES, type Who } from "./machine";
import { SUPERVISORS, WORKERS, type Standing } from "./standing";
import { answerQuestion, askQuestion } from "../questions/questions";
import { ANSWERERS } from "../questions/rules";

// The machine says who makes each move; the operation that performs it says which callers
// `perform` lets through. The two must agree, or a surface would offer what the engine refuses
// (or the engine let through what the machine gives to someone else). System moves (lapse,
// strike, unblock, escalateDependent) have no operation of their own: other moves make them.
const OPERATION_OF: Partial<Record<keyof typeof MOVES, Operation<z.ZodType, unknown>>> = {
  create: createTask, claim, start, renew, sideEffect: recordSideEffect, release, complete, fail: failTask,
  forceRelease, requeue, resolve, cancel, edit: editTask, addDependencies, removeDependency, comment: addComment,
  approve: review, reject: review,
  ask: askQuestion, answer: answerQuestion,
  raiseBudget, ack: acknowledge,
};

const STANDINGS_OF: Record<Exclude<Who, "system">, readonly Standing[]> = {
  owner: WORKERS, person: ANSWERERS, claimant: WORKERS, editor: WORKERS, anyone: WORKERS, reviewer: WORKERS, supervisor: SUPERVISORS,
};

describe("the machine's who is the operations' who", () => {
  for (const [move, row] of Object.entries(MOVES) as [keyof typeof MOVES, (typeof MOVES)[keyof typeof MOVES]][]) {
    test(move, () => {
      const op = OPERATION_OF[move];
      if (row.who === "system") return expect(op, `${move} is the system's: no operation performs it`).toBeUndefined();
      expect(op, `${move} needs its operation here`).toBeDefined();
      expect([...op!.who].sort()).toEqual([...STANDINGS_OF[row.who]].sort());
    });
  }
});
