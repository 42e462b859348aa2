import { expect, test } from "vitest";
import { mostInNeed } from "./attention";
import type { QueueOverview } from "./insights";

const q = (name: string, verdict: string, expiries: number, claims: number, tripped = false) =>
  ({ queue: { name, breakerTrippedAt: tripped ? new Date() : null }, recommendation: { verdict }, evidence: { expiries, claims } }) as unknown as QueueOverview;

test("Insights opens on the queue that most needs attention: a tripped breaker, then a lease too short, then too long", () => {
  const calm = q("a-calm", "about right", 0, 50);
  const short = q("b-short", "too short", 3, 10);
  const shorter = q("c-shorter", "too short", 7, 5);
  const long = q("d-long", "too long", 0, 90);
  const tripped = q("e-tripped", "not enough data", 0, 0, true);
  expect(mostInNeed([calm, short, shorter, long, tripped])?.queue.name).toBe("e-tripped");
  expect(mostInNeed([calm, short, shorter, long])?.queue.name).toBe("c-shorter"); // more lapsed leases
  expect(mostInNeed([calm, long])?.queue.name).toBe("d-long");
  expect(mostInNeed([q("x", "about right", 0, 1), q("y", "about right", 0, 9)])?.queue.name).toBe("y"); // busier
  expect(mostInNeed([q("x", "about right", 0, 1), q("y", "about right", 0, 1)])?.queue.name).toBe("x"); // first by name
  expect(mostInNeed([])).toBeUndefined();
});
