import { describe, expect, test } from "vitest";
import { eventType } from "@/db/schema/enums";
import { EVENT_TYPES } from "@/lib/tasks/core/machine-events";
import { groupEventTypes } from "./event-groups";

describe("the webhook picker's groups", () => {
  test("every event type of the engine's list appears exactly once, the ones a team asks for in their groups", () => {
    const groups = groupEventTypes();
    const listed = groups.flatMap((g) => g.types.map((t) => t.type));
    expect([...listed].sort()).toEqual([...EVENT_TYPES].sort());
    expect([...listed].sort()).toEqual([...eventType.enumValues].sort());
    const where = (type: string) => groups.find((g) => g.types.some((t) => t.type === type))?.id;
    expect(groups.map((g) => g.id).slice(0, 6)).toEqual(["work", "people", "effects", "budgets", "graph", "admin"]);
    for (const type of ["submitted", "approved", "rejected", "question_asked"]) expect(where(type), type).toBe("people");
    expect(where("budget_reached")).toBe("budgets");
    expect(where("effect_unknown")).toBe("effects");
  });

  test("a type no group names still appears, under Other; a name no type has is left out", () => {
    const groups = groupEventTypes(["completed", "brand_new", "approved"]);
    expect(groups).toEqual([
      { id: "work", label: "Work", types: [{ type: "completed", label: "completed it" }] },
      { id: "people", label: "People in the loop", types: [{ type: "approved", label: "approved the submission" }] },
      { id: "other", label: "Other", types: [{ type: "brand_new", label: "brand new" }] },
    ]);
  });
});
