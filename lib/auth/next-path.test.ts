import { describe, expect, it } from "vitest";
import { safeNext } from "./next-path";

// `next` as the login page gets it: the query string decoded once. A browser strips tab,
// newline and CR from a URL and reads a backslash as a slash, so "/\t/evil.example" is
// "//evil.example" by the time it navigates; a layer that decodes once more turns "%5C"
// into a backslash. Whatever comes in, what goes out resolves on this site, decoded or not.
const APP = "https://board.example";
const hostile = [
  "/\t/evil.example",
  "/\n/evil.example",
  "/\r/evil.example",
  "/\r\n/evil.example",
  "\t//evil.example",
  "/\\evil.example",
  "/\\/evil.example",
  "\\\\evil.example",
  "//evil.example",
  "///evil.example",
  "/%2F/evil.example",
  "/%2f/evil.example",
  "%2F%2Fevil.example",
  "/%5Cevil.example",
  "/%5cevil.example",
  "/%09/evil.example",
  "/%0a/evil.example",
  "/%0d/evil.example",
  "/%0D%0A/evil.example",
  "/%252F/evil.example",
  "https://evil.example/",
  "http:evil.example",
  "javascript:alert(1)",
  "/\u0000/evil.example",
  "/%E0%A4%A",
  "",
];

function landsOnApp(path: string): boolean {
  for (let candidate = path, i = 0; i < 4; i++) {
    if (new URL(candidate, APP).origin !== APP) return false;
    const decoded = decodeURIComponent(candidate);
    if (decoded === candidate) return true;
    candidate = decoded;
  }
  return true;
}

describe("safeNext", () => {
  it.each(hostile)("sends %j home", (next) => {
    const kept = safeNext(next);
    expect(kept).toBe("/");
    expect(landsOnApp(kept)).toBe(true);
  });

  it.each(["/", "/tasks/1", "/?status=queued", "/tasks/1?tab=history#event-3", "/inbox?q=a%20b", "/queues/default"])("keeps %j", (next) => {
    expect(safeNext(next)).toBe(next);
  });

  it("reads the first of repeated parameters, and nothing else", () => {
    expect(safeNext(["//evil.example", "/tasks/1"])).toBe("/");
    expect(safeNext(["/tasks/1", "//evil.example"])).toBe("/tasks/1");
    expect(safeNext(undefined)).toBe("/");
    expect(safeNext(null)).toBe("/");
  });
});
