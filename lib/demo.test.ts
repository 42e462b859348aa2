import { afterAll, beforeAll, expect, test } from "vitest";
import { readInsights } from "@/lib/insights/insights";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { rowCounts } from "@/test/inspect";
import { seedDemo } from "./demo";

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await database?.close();
});

test("an empty database gets three people, tasks, and a history /insights can read; a second call changes nothing", async () => {
  const logins = await seedDemo(database.db);
  expect(logins?.map((l) => [l.email, l.role])).toEqual([
    ["amal@example.com", "staff"],
    ["bilal@example.com", "staff"],
    ["sara@example.com", "supervisor"],
  ]);
  const insights = await readInsights(database.db, { queue: "imports", window: "6h" });
  expect(insights.selected!.evidence.claims).toBeGreaterThan(40);
  expect(insights.selected!.evidence.expiries).toBeGreaterThan(0);
  expect(insights.selected!.recommendation.verdict).toBe("too short");
  expect(insights.selected!.claimants.map((c) => c.actor.name)).toEqual(expect.arrayContaining(["import-bot-1", "import-bot-2", "Amal"]));

  const rules = await database.client`SELECT name, claimants, max_attempt_seconds FROM queues WHERE name IN ('errands', 'crawl') ORDER BY name`;
  expect(rules).toEqual([
    { name: "crawl", claimants: "agents", max_attempt_seconds: 900 },
    { name: "errands", claimants: "people", max_attempt_seconds: null },
  ]);

  const before = await rowCounts(database.db);
  expect(await seedDemo(database.db)).toBeNull();
  expect(await rowCounts(database.db)).toEqual(before);
});
