import { describe, expect, test } from "vitest";
import { distance, nearest } from "./nearest";

describe("nearest: the name a typo meant", () => {
  const QUEUES = ["billing", "default", "triage", "triage-urgent"];
  test("within two edits, the closest wins", () => {
    expect(distance("kitten", "sitting")).toBe(3);
    expect(nearest("triag", QUEUES)).toBe("triage");
    expect(nearest("bilinng", QUEUES)).toBe("billing");
    expect(nearest("defualt", QUEUES)).toBe("default"); // a swap is two edits
  });
  test("a prefix of three characters or more, when no name is within the edits", () => {
    expect(nearest("bill", QUEUES)).toBe("billing");
    expect(nearest("triage-ur", QUEUES)).toBe("triage-urgent");
  });
  test("nothing close: no suggestion; short words need fewer edits; the name itself is no suggestion", () => {
    expect(nearest("zzzzzz", QUEUES)).toBeUndefined();
    expect(nearest("xy", ["ab"])).toBeUndefined();
    expect(nearest("bi", QUEUES)).toBeUndefined();
    expect(nearest("triage", ["triage"])).toBeUndefined();
    expect(nearest("anything", [])).toBeUndefined();
  });
});
