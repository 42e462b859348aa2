import { describe, expect, test } from "vitest";
import { draftOf, mergeDraft, readEdit } from "@/components/task/editing";
import type { TaskView } from "@/components/task/wire";

// The edit form's three-way merge after a version conflict (components/task/editing.ts):
// the lost update of issue 27 — saving again must not undo a field someone else changed.

const task = (fields: Partial<TaskView>): TaskView =>
  ({ id: "1", title: "Book the van", description: "", priority: 6, payload: { site: 7 }, queue: "default", version: 1, status: "queued", ...fields }) as TaskView;

describe("mergeDraft", () => {
  const origin = task({});
  test("a field only they changed takes their value; the person's changes stay; nothing asks", () => {
    const current = task({ priority: 9, version: 2 });
    const mine = { ...draftOf(origin), title: "Book the big van" };
    const { draft, clashes } = mergeDraft(mine, origin, current);
    expect(draft.priority).toBe("9");
    expect(draft.title).toBe("Book the big van");
    expect(clashes).toEqual([]);
    const read = readEdit(draft, current);
    expect(read).toEqual({ changes: { title: "Book the big van" } });
  });
  test("a field both changed to different values keeps the person's and is a clash", () => {
    const current = task({ priority: 9, title: "Book the small van", version: 2 });
    const mine = { ...draftOf(origin), priority: "4" };
    const { draft, clashes } = mergeDraft(mine, origin, current);
    expect(draft).toMatchObject({ priority: "4", title: "Book the small van" });
    expect(clashes).toEqual([{ field: "priority", theirs: "9" }]);
  });
  test("both changed to the same value is no clash; an equivalent payload is no change", () => {
    const current = task({ priority: 9, version: 2 });
    const mine = { ...draftOf(origin), priority: " 9", payload: '{ "site": 7 }' };
    const { draft, clashes } = mergeDraft(mine, origin, current);
    expect(clashes).toEqual([]);
    expect(readEdit(draft, current)).toEqual({ changes: {} });
  });
  test("a payload both changed differently clashes; one only they changed comes through", () => {
    const theirs = task({ payload: { site: 8 }, version: 2 });
    expect(mergeDraft({ ...draftOf(origin), payload: '{"site": 9}' }, origin, theirs).clashes).toEqual([{ field: "payload", theirs: draftOf(theirs).payload }]);
    expect(mergeDraft({ ...draftOf(origin), description: "gate 2" }, origin, theirs).draft.payload).toBe(draftOf(theirs).payload);
  });
});

describe("the queue field", () => {
  test("a move is a change; after a conflict a queue only they changed comes through", () => {
    const origin = task({});
    expect(readEdit({ ...draftOf(origin), queue: "people" }, origin)).toEqual({ changes: { queue: "people" } });
    const moved = task({ queue: "people", version: 2 });
    const { draft, clashes } = mergeDraft({ ...draftOf(origin), title: "Book the big van" }, origin, moved);
    expect(clashes).toEqual([]);
    expect(readEdit(draft, moved)).toEqual({ changes: { title: "Book the big van" } });
  });
});
