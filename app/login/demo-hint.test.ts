import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { users } from "@/db/schema";
import { createUser } from "@/lib/auth/users";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { DEMO_PEOPLE, demoLoginsFile, demoLoginsHint } from "./demo-hint";

// The sign-in page hints at the demo accounts only after an embedded first start: its
// logins file on disk and the demo people in the database, both.

let database: TestDatabase;
let dir: string;

beforeAll(async () => {
  database = await freshDatabase();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "cb-demo-"));
});
afterAll(async () => {
  await database?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

test("no file (a DATABASE_URL deployment, or no demo): no hint, even with the demo's emails in the database", async () => {
  await createUser(database.db, { email: "sara@example.com", name: "Sara", role: "supervisor", password: "sara-password-1" });
  expect(await demoLoginsHint(database.db, dir)).toBeNull();
});

test("the file and the demo people: the hint names them (never a password); a disabled one drops out", async () => {
  await fs.writeFile(path.join(dir, "demo-logins.txt"), "  supervisor sara@example.com password secret\n");
  await createUser(database.db, { email: "amal@example.com", name: "Amal", role: "staff", password: "amal-password-1" });
  const hint = await demoLoginsHint(database.db, dir);
  expect(hint).toEqual([{ email: "amal@example.com", role: "staff" }, { email: "sara@example.com", role: "supervisor" }]);
  expect(JSON.stringify(hint)).not.toContain("secret");
  await database.db.update(users).set({ disabled: true }).where(eq(users.email, "amal@example.com"));
  expect(await demoLoginsHint(database.db, dir)).toEqual([{ email: "sara@example.com", role: "supervisor" }]);
});

test("the file but none of the demo people (they were removed): no hint", async () => {
  await database.db.update(users).set({ disabled: true }).where(inArray(users.email, DEMO_PEOPLE.map((p) => p.email)));
  expect(await demoLoginsHint(database.db, dir)).toBeNull();
});

test("the hint names the file, never where it is on the server (a path tells a stranger the layout, a user name)", () => {
  for (const folder of ["/srv/someone/claimboard-data", path.join(process.cwd(), ".data"), dir]) {
    const named = demoLoginsFile(folder);
    expect(named).toBe("demo-logins.txt");
  }
});
