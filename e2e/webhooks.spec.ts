import { SARA } from "./people";
import { expect, signIn, test } from "./fixtures";

// /webhooks as a supervisor uses it: register an endpoint (the secret shown once, in a dialog),
// see it listed with what it hears, its (empty) delivery log, a refusal in words, delete it.

test("a supervisor registers a webhook, sees its secret once and its delivery log, and deletes it", async ({ page, queue }) => {
  await signIn(page, SARA, "/webhooks");
  const form = page.getByRole("form", { name: "Register a webhook" });
  await form.getByLabel("Endpoint URL").fill("http://10.0.0.7/hook");
  await form.getByRole("button", { name: "Register webhook" }).click();
  await expect(form.getByRole("alert")).toHaveText(/^Url: url points to an address that is not allowed: 10\.0\.0\.7 is a private, link-local, reserved or other special-purpose address\.$/);

  const url = `https://198.51.100.7/${queue}`;
  await form.getByLabel("Endpoint URL").fill(url);
  // A lapse is announced when it happens (docs/claiming.md): the picker offers it in words.
  await expect(form.getByLabel("lease lapsed", { exact: true })).not.toBeChecked();
  await form.getByLabel("failed", { exact: true }).check();
  await form.getByLabel(queue, { exact: true }).check();
  await form.getByRole("button", { name: "Register webhook" }).click();
  const dialog = page.getByRole("dialog", { name: "Webhook registered" });
  await expect(dialog.getByLabel("Signing secret")).toHaveValue(/^whsec_[A-Za-z0-9+/=]{32}$/);
  await dialog.getByRole("button", { name: "Done" }).click();

  const hook = page.getByTestId("webhook").filter({ hasText: url });
  await expect(hook).toContainText(`failed, escalated · queues ${queue}`);
  await expect(hook).toContainText("active");
  await hook.getByRole("button", { name: "Deliveries" }).click();
  await expect(hook).toContainText("Nothing delivered yet");
  await expect(page.getByRole("region", { name: "Changes to webhooks" }).getByRole("listitem").filter({ hasText: `registered the webhook ${url}` })).toContainText(SARA.name);

  await page.reload(); // the secret is not on the page any more
  await expect(page.getByText(/whsec_/)).toHaveCount(0);
  await page.getByRole("button", { name: `Delete webhook ${url}`, exact: true }).click();
  await expect(page.getByRole("status").filter({ hasText: "Webhook deleted" })).toBeVisible();
  await expect(page.getByTestId("webhook").filter({ hasText: url })).toHaveCount(0);
});

test("a webhook its receiver disabled (410 Gone) is named in the supervisors' inbox", async ({ page, db, queue }) => {
  const { webhooks } = await import("../db/schema");
  const { eq } = await import("drizzle-orm");
  const url = `https://198.51.100.8/${queue}`;
  const [row] = await db.insert(webhooks).values({
    url, events: ["escalated"], secretSealed: "unused", createdBy: "00000000-0000-0000-0000-000000000000",
    disabledAt: new Date(), disabledReason: "the receiver answered 410 Gone",
  }).returning();
  try {
    await signIn(page, SARA, "/inbox");
    const notice = page.getByRole("status", { name: "Disabled webhooks" });
    await expect(notice).toContainText(`${url}: the receiver answered 410 Gone`);
    await notice.getByRole("link", { name: "Open webhooks" }).click();
    await expect(page.getByTestId("webhook").filter({ hasText: url })).toContainText("disabled: the receiver answered 410 Gone");
  } finally {
    await db.update(webhooks).set({ deletedAt: new Date() }).where(eq(webhooks.id, row!.id));
  }
});

test("a webhook and a schedule whose maker's authority ended show paused with the reason, in the inbox and their pages, until adopted", async ({ page, db, queue }) => {
  const { schedules, webhooks } = await import("../db/schema");
  const { eq } = await import("drizzle-orm");
  const reason = "Pat is no longer a supervisor";
  const url = `https://198.51.100.9/${queue}`;
  const name = `Orphaned digest ${queue}`;
  const maker = "00000000-0000-0000-0000-000000000000";
  const [hook] = await db.insert(webhooks).values({
    url, events: ["escalated"], secretSealed: "unused", createdBy: maker, authorityEndedAt: new Date(), authorityEndedReason: reason,
  }).returning();
  const [schedule] = await db.insert(schedules).values({
    name, cron: "0 9 * * 1", queue, task: { title: "digest" }, createdBy: maker, nextAt: new Date(Date.now() + 86_400_000),
    authorityEndedAt: new Date(), authorityEndedReason: reason,
  }).returning();
  try {
    await signIn(page, SARA, "/inbox");
    await expect(page.getByRole("status", { name: "Disabled webhooks" })).toContainText(`${url}: paused, ${reason}`);
    await expect(page.getByRole("status", { name: "Paused schedules" })).toContainText(`${name}: ${reason}`);

    await page.goto("/webhooks");
    const card = page.getByTestId("webhook").filter({ hasText: url });
    await expect(card).toContainText(`paused: ${reason}`);
    await card.getByRole("button", { name: `Adopt webhook ${url}`, exact: true }).click();
    await expect(card).toContainText("active");
    await expect(card.getByRole("button", { name: /^Adopt/ })).toHaveCount(0);
    await expect(page.getByRole("region", { name: "Changes to webhooks" }).getByRole("listitem").filter({ hasText: `adopted the webhook ${url}` })).toContainText(SARA.name);

    await page.goto("/schedules");
    const row = page.getByTestId("schedule").filter({ hasText: name });
    await expect(row).toContainText(`paused: ${reason}`);
    await expect(row).toContainText("Next run: none until a supervisor adopts it");
    await row.getByRole("button", { name: `Adopt schedule ${name}`, exact: true }).click();
    await expect(row).toContainText("active");
    await expect(row).toContainText(/Next run: \S+/);
    await expect(page.getByRole("region", { name: "Changes to schedules" }).getByRole("listitem").filter({ hasText: `adopted the schedule ${name}` })).toContainText(SARA.name);
  } finally {
    await db.update(webhooks).set({ deletedAt: new Date() }).where(eq(webhooks.id, hook!.id));
    await db.update(schedules).set({ deletedAt: new Date() }).where(eq(schedules.id, schedule!.id));
  }
});
