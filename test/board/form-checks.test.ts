import { describe, expect, test } from "vitest";
import { draftProblems } from "@/components/board/create-task";
import { draftOf, readEdit } from "@/components/task/editing";
import { readHandoff } from "@/components/task/handoff-dialog";
import type { TaskView } from "@/components/task/wire";
import { LIMITS } from "@/lib/limits";

// Issue 27 item 10: a form's check says every wrong field at once, each in its own
// sentence, so a person fixes them in one pass rather than one refusal at a time.

const task = { id: "1", title: "Book the van", description: "", priority: 6, payload: { site: 7 }, queue: "default", version: 1, status: "queued" } as unknown as TaskView;

describe("the edit form", () => {
  test("a too-long title, a priority out of range and a broken payload: three sentences, no change sent", () => {
    const read = readEdit({ ...draftOf(task), title: "x".repeat(LIMITS.title + 1), priority: "1001", payload: "{site: 7" }, task);
    expect("problems" in read && Object.keys(read.problems).sort()).toEqual(["payload", "priority", "title"]);
    if (!("problems" in read)) throw new Error("expected problems");
    expect(read.problems.title).toBe(`The title is ${LIMITS.title + 1} characters; at most ${LIMITS.title} fit.`);
    expect(read.problems.priority).toBe("The priority must be a whole number from -1000 to 1000.");
    expect(read.problems.payload).toMatch(/^The payload isn't valid JSON/);
  });
  test("a payload that parses but is not an object is said as such; a good form has no problems", () => {
    const read = readEdit({ ...draftOf(task), payload: "[1, 2]" }, task);
    expect(read).toEqual({ problems: { payload: `The payload must be a JSON object, in braces: {"site": 7}.` } });
    expect(readEdit({ ...draftOf(task), priority: "7" }, task)).toEqual({ changes: { priority: 7 } });
  });
});

describe("the new-task form", () => {
  test("an empty title and a priority that is not a number are both said", () => {
    expect(draftProblems({ title: "  ", description: "", queue: "default", priority: NaN })).toEqual({
      title: "Write a title: it is what the board shows.",
      priority: "The priority must be a whole number from -1000 to 1000.",
    });
    expect(draftProblems({ title: "Fix the boiler", description: "x".repeat(LIMITS.description), queue: "default", priority: -1000 })).toEqual({});
    expect(draftProblems({ title: "Fix the boiler", description: "x".repeat(LIMITS.description + 1), queue: "default", priority: 0 }).description).toBe(
      "The description is 10,001 characters; at most 10,000 fit.",
    );
  });
});

describe("the hand-off", () => {
  test("a next step without a summary and too many links: each field its sentence", () => {
    const links = Array.from({ length: LIMITS.artifacts + 1 }, (_, i) => `https://files.test/${i}`).join("\n");
    expect(readHandoff("", "Book the inspector", links)).toEqual({
      problems: {
        summary: "Write what you did in the hand-off summary, or leave the whole hand-off empty.",
        links: `A hand-off carries at most ${LIMITS.artifacts} links; this one has ${LIMITS.artifacts + 1}.`,
      },
    });
  });
  test("an empty hand-off is none; a filled one is the note", () => {
    expect(readHandoff("", "", "")).toEqual({ note: null });
    expect(readHandoff(" Found the certificate ", "", "https://files.test/a.pdf\n")).toEqual({
      note: { summary: "Found the certificate", artifacts: ["https://files.test/a.pdf"] },
    });
  });
});
