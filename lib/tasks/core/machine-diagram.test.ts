import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { machineDiagram } from "./machine-diagram";

test("docs/state-machine.md draws the machine as the table says", () => {
  const doc = readFileSync(path.resolve(import.meta.dirname, "../../../docs/state-machine.md"), "utf8");
  const block = /```mermaid\n([\s\S]*?)\n```/.exec(doc)?.[1];
  expect(block).toBe(machineDiagram());
});
