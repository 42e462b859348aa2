import { EVENTS } from "./machine-events";
import { FINISHED, MOVES, STATUSES, type MoveRow, type TaskStatus } from "./machine";

/**
 * The machine as a mermaid stateDiagram-v2, drawn from the table: one edge per pair of
 * statuses, labelled with the moves between them ("lapsed": only once the lease lapsed; a rule
 * of the move that reaches the other status of its `or`).
 * Moves whose events are all written aside (a comment) change no state and are not drawn.
 * docs/state-machine.md holds its output; machine-diagram.test.ts keeps the two equal.
 */
export function machineDiagram(): string {
  const edges = new Map<string, string[]>();
  const edge = (from: string, to: string, label: string) => {
    const key = `${from} --> ${to}`;
    edges.set(key, [...(edges.get(key) ?? []), label]);
  };
  for (const [name, row] of Object.entries(MOVES) as [string, MoveRow][]) {
    if (row.events.every((type) => EVENTS[type].aside)) continue;
    const targets = (from: TaskStatus) => (row.to === "same" ? [from] : [row.to, ...(row.or ? [row.or.to] : [])]);
    const label = (to: TaskStatus, lapsed: boolean) => {
      const notes = [...(lapsed ? ["lapsed"] : []), ...(row.or && row.or.to === to ? [row.or.when] : [])];
      return notes.length > 0 ? `${name} (${notes.join("; ")})` : name;
    };
    if (row.from.length === 0 && !row.fromLapsed) for (const to of targets("queued")) edge("[*]", to, label(to, false));
    for (const from of row.from) for (const to of targets(from)) edge(from, to, label(to, false));
    for (const from of row.fromLapsed ?? []) for (const to of targets(from)) edge(from, to, label(to, true));
  }
  const order = (key: string) => {
    const [from, to] = key.split(" --> ") as [string, string];
    const rank = (s: string) => (s === "[*]" ? -1 : STATUSES.indexOf(s as TaskStatus));
    return rank(from) * 100 + rank(to);
  };
  const lines = [...edges.keys()].sort((a, b) => order(a) - order(b)).map((key) => `    ${key}: ${edges.get(key)!.join(", ")}`);
  return ["stateDiagram-v2", ...lines, ...FINISHED.map((status) => `    ${status} --> [*]`)].join("\n");
}
