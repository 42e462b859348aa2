import { SARA } from "./people";
import { expect, signIn, test } from "./fixtures";
import { createUser } from "../lib/auth/users";

// The audit of people administration and tokens (lib/auth/audit.ts), as a supervisor sees it:
// who did what to whom, when, on the page where it was done.

test("a role change on the people page shows in its audit log: who, what, to whom", async ({ page, db, queue }) => {
  const name = `Audited ${queue}`;
  await createUser(db, { email: `audited-${queue}@example.com`, name, role: "staff", password: "audited-password-1" });
  await signIn(page, SARA, "/people");
  const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name }) });
  await row.getByLabel(`Role of ${name}`).selectOption("supervisor");
  await expect(page.getByRole("status").filter({ hasText: `${name} is now supervisor.` })).toBeVisible();

  const log = page.getByRole("region", { name: "Changes to people" });
  await expect(log.getByRole("listitem").filter({ hasText: `changed the role of ${name} from staff to supervisor` })).toContainText(SARA.name);
  await page.reload(); // and it is the record, not the page's memory
  await expect(log.getByRole("listitem").filter({ hasText: `changed the role of ${name} from staff to supervisor` })).toBeVisible();
});

test("a token created on the agents page shows in its audit log", async ({ page, queue }) => {
  const name = `audited-${queue}`;
  await signIn(page, SARA, "/agents");
  await page.getByLabel("Token name").fill(name);
  await page.getByRole("button", { name: "Create token" }).click();
  await page.getByRole("dialog", { name: `Token ${name} created` }).getByRole("button", { name: "Done" }).click();
  const log = page.getByRole("region", { name: "Changes to tokens" });
  await expect(log.getByRole("listitem").filter({ hasText: `created the agent token ${name}` })).toContainText(SARA.name);
});
